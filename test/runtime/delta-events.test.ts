// Text deltas go to live watchers only: the step chart hears once that text is streaming, and the
// model-call actor keeps the text until a cancel asks for it. Counted through XState's inspection.
import { afterEach, describe, expect, it } from 'vitest';
import type { InspectionEvent } from 'xstate';
import type { LiveEvent } from '../../src/actors/live-event.ts';
import type { ModelEvent, Provider } from '../../src/providers/types.ts';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';

let system: AgentSystem | undefined;
afterEach(async () => {
  await system?.dispose();
  system = undefined;
});

const deltas = Array.from({ length: 1000 }, (_, index) => `${index} `);
const usage = { inputTokens: 1, outputTokens: 1 };

/** Streams the 1,000 deltas; with `hold`, then waits until the request is aborted. */
function deltaModel(hold: boolean): Provider {
  return {
    name: 'deltas',
    model: 'deltas-1',
    async *stream(_request, signal): AsyncGenerator<ModelEvent> {
      for (const text of deltas) yield { type: 'text.delta', text };
      if (hold) {
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        return;
      }
      yield { type: 'usage', usage };
      yield { type: 'done', stopReason: 'end_turn' };
    },
  };
}

function start(hold: boolean) {
  system = createAgentSystem({ model: deltaModel(hold), projectInstructions: false });
  const stepEvents: string[] = [];
  system.inspect((event: InspectionEvent) => {
    if (event.type === '@xstate.event' && event.event.type.startsWith('model.'))
      stepEvents.push(event.event.type);
  });
  return { sys: system, stepEvents };
}

async function collectDeltas(events: AsyncIterable<LiveEvent>, until: (event: LiveEvent) => boolean) {
  const seen: string[] = [];
  for await (const event of events) {
    if (event.type === 'model.delta') seen.push(event.text);
    if (until(event)) break;
  }
  return seen;
}

describe('text deltas', () => {
  it('reach watchers one by one, in order, while the chart hears one model.streaming per attempt', async () => {
    const { sys, stepEvents } = start(false);
    const agent = await sys.createAgent();
    const watched = collectDeltas(agent.events(), (e) => e.type === 'log' && e.event.type === 'turn.end');
    const result = await agent.run('go');
    expect(await watched).toEqual(deltas);
    expect(result.text).toBe(deltas.join(''));
    expect(stepEvents).toEqual(['model.request', 'model.streaming', 'model.done']);
  });

  it('a cancel mid-stream logs exactly the text watchers saw, handed over by the model call', async () => {
    const { sys, stepEvents } = start(true);
    const agent = await sys.createAgent();
    const watched = collectDeltas(agent.events(), (e) => e.type === 'model.delta' && e.text === '999 ');
    const run = agent.run('go');
    const seen = await watched;
    agent.cancel();
    expect((await run).reason).toBe('canceled');
    const interrupted = agent.log().filter((event) => event.type === 'assistant.message');
    expect(interrupted.map((event) => [event.data.text, event.data.interrupted])).toEqual([
      [seen.join(''), true],
    ]);
    expect(seen).toEqual(deltas);
    expect(stepEvents).toEqual(['model.request', 'model.streaming', 'model.interrupt', 'model.interrupted']);
  });
});
