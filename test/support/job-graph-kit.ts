// Systems for task-graph tests: each task's model answers from the first line of its prompt (what the
// task was asked; the dependencies' results follow it), and a task whose prompt starts with `fail` is
// refused, so a graph's failures are written in its prompts.
import { afterEach } from 'vitest';
import type { ModelRequest } from '../../src/providers/types.ts';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { counterIds, firstUser, routedModel, tickingClock } from './crash-kit.ts';

/**
 * Registers the disposal of every system it makes after each test, and returns the maker: a system whose
 * tasks answer `answer(head)` (or are refused `refused <head>` when the head starts with `fail`); the
 * prompts the model was given are pushed onto `prompts` when one is passed.
 */
export function useGraphSystems(answer: (head: string) => string): (prompts?: string[]) => AgentSystem {
  const systems: AgentSystem[] = [];
  afterEach(async () => {
    await Promise.all(systems.splice(0).map((system) => system.dispose()));
  });
  return (prompts) => {
    const model = routedModel({}, (request: ModelRequest) => {
      const prompt = firstUser(request);
      prompts?.push(prompt);
      const head = prompt.split('\n')[0]!;
      if (head.startsWith('fail')) return { error: { kind: 'bad_request', message: `refused ${head}` } };
      return { text: answer(head) };
    });
    const system = createAgentSystem({
      model,
      tools: [],
      ids: counterIds(),
      clock: tickingClock(),
      projectInstructions: false,
      permissionMode: 'bypass',
    });
    systems.push(system);
    return system;
  };
}
