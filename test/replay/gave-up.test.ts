// Every way a step can give up on the model replays byte for byte: each failed request is an
// assistant.attempt in the log (the last one too), so the replay provider answers every request the
// recording made, and the turn's own error (which may say why compaction did not help) comes out the same.
// Retries that run out are covered by the retries-exhausted fixture.
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import { type ScriptStep, scripted } from '../../src/providers/scripted.ts';
import type { Provider } from '../../src/providers/types.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { CompactionOptions } from '../../src/runtime/options.ts';
import { assertSameLog } from '../../src/session/compare-logs.ts';
import { replay } from '../../src/session/replay-provider.ts';
import type { LogEvent } from '../../src/session/types.ts';

const overflow: ScriptStep = { error: { kind: 'context_overflow', message: 'prompt is too long' } };

/** Three turns; the second one's requests are answered by `middle`. */
async function threeTurns(model: Provider, compaction: CompactionOptions): Promise<LogEvent[]> {
  let next = 0;
  const system = createAgentSystem({
    model,
    ids: () => `id-${++next}`,
    clock: new SimulatedClock(1_000),
    projectInstructions: false,
    compaction,
  });
  const agent = await system.createAgent({ id: 'gave-up' });
  for (const message of ['First question', 'Second question', 'Third question']) await agent.run(message);
  await system.dispose();
  return [...agent.log()];
}

// The overflowed request of "nothing older" is logged before the step knows compaction cannot help (it
// says retryInMs 0: compact first); in every other case the last attempt carries no retry.
const cases: [string, ScriptStep[], CompactionOptions][] = [
  ['still too long after compaction', [overflow, { text: 'Summary.' }, overflow], { keepRecentTurns: 1 }],
  ['nothing older to compact', [overflow], { keepRecentTurns: 2 }],
  ['the summarising request overflows too', [overflow, overflow], { keepRecentTurns: 1 }],
  ['overflow with compaction off', [overflow], { enabled: false }],
  ['a request refused at once', [{ error: { kind: 'bad_request', message: 'no such model' } }], {}],
];

describe('a turn that ended in model_error', () => {
  it.each(cases)('replays byte for byte: %s', async (name, middle, compaction) => {
    const script = [{ text: 'First answer.' }, ...middle, { text: 'Third answer.' }];
    const recorded = await threeTurns(scripted(script, { clock: new SimulatedClock(1_000) }), compaction);
    const reasons = recorded.filter((event) => event.type === 'turn.end').map((end) => end.data.reason);
    expect(reasons).toEqual(['completed', 'model_error', 'completed']);
    const attempts = recorded.filter((event) => event.type === 'assistant.attempt');
    expect(attempts.length).toBe(middle.filter((step) => 'error' in step).length);
    expect(attempts.at(-1)!.data.retryInMs).toBe(name === 'nothing older to compact' ? 0 : undefined);

    const model = replay(recorded, { clock: new SimulatedClock(1_000) });
    const again = await threeTurns(model, compaction);
    model.assertConsumed();
    assertSameLog(recorded, again);
    expect(again).toHaveLength(recorded.length);
  });
});
