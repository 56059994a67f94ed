// A supervisor with two background children, on a scripted model, for the tests of what the inspector and
// the chat show of them: A waits for word from its parent, then writes to it and reports; B (agent type
// `reader`) reports at once. The word comes from the host (`child.send`) when the test says so, so a test
// can look at the tree while A waits, B has finished and the parent's turn waits for A.
import type { ModelRequest } from '../../src/providers/types.ts';
import type { Agent } from '../../src/runtime/agent-handle.ts';
import type { AgentSystemOptions } from '../../src/runtime/options.ts';
import { backgroundAgentTools } from '../../src/tools/background-agents.ts';
import { routedModel, stepIndex, until } from './crash-kit.ts';
import { call } from './mail-kit.ts';

/** What A writes to its parent: markup a page must show as text, never run. */
export const hostileText = '<img src=x onerror="window.hacked=1"><b>not bold</b>';

/** How many results a request of the parent has read. */
const resultsRead = (request: ModelRequest) =>
  request.messages.filter((m) => m.role === 'user' && / finished \(/.test(m.content)).length;

/** The model and tools of the run (give them to a system with a store and a clock of the test's choosing). */
export function supervisorOptions(): Pick<AgentSystemOptions, 'model' | 'tools'> {
  const model = routedModel({
    supervise: (request) =>
      stepIndex(request) === 0
        ? {
            toolCalls: [
              call('spawn_agent', {
                prompt: 'worker A\nWait for word from me.',
                description: 'Waits for word',
              }),
              call('spawn_agent', { prompt: 'worker B', agent_type: 'reader' }),
            ],
          }
        : { text: resultsRead(request) >= 2 ? 'All reported.' : 'Waiting for my agents.' },
    'worker A\nWait for word from me.': [
      { toolCalls: [call('wait_agents', { ids: ['parent'] })] },
      { toolCalls: [call('send_message', { to: 'parent', text: hostileText })] },
      { text: 'A result' },
    ],
    'worker B': [{ text: 'B result' }],
  });
  return { model, tools: backgroundAgentTools({ agentTypes: { reader: { description: 'Reads.' } } }) };
}

/**
 * Starts the supervisor (`parent`) on its task and returns once A waits for word (its `wait_agents` runs)
 * and the parent has read B's result and answered (its turn waits for A). `goOn()` then sends A the word and resolves with the turn's end.
 */
export async function startSupervisor(
  parent: Agent,
): Promise<{ childA: string; childB: string; goOn: () => Promise<unknown> }> {
  const turn = parent.run('supervise');
  // Bounded by the test's own timeout, not by a count of rounds: a loaded machine (a browser beside) is slow.
  const rounds = Number.MAX_SAFE_INTEGER;
  await until(() => parent.children().length === 2, 'both children started', rounds);
  // Told apart by label: the two spawns run side by side, so either may be listed first.
  const a = parent.children().find((child) => child.description === 'Waits for word');
  const b = parent.children().find((child) => child.description === 'worker B');
  await until(
    () => a!.log().some((event) => event.type === 'tool.started') && b!.status === 'finished',
    'A waiting for word and B finished',
    rounds,
  );
  // The parent read B's result and answered: its turn now waits for A.
  await until(
    () => {
      const log = parent.log();
      const read = log.findIndex(
        (event) =>
          event.type === 'user.message' && String(event.data.content).startsWith(`Agent ${b!.id} finished`),
      );
      return read >= 0 && log.slice(read).some((event) => event.type === 'assistant.message');
    },
    'the parent to read B result and answer',
    rounds,
  );
  return {
    childA: a!.id,
    childB: b!.id,
    goOn: async () => {
      a!.send('Go on.');
      return turn;
    },
  };
}
