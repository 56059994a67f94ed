// Graph paths of the turn chart's hook waits, each driven through the real runtime with in-process hooks
// the driver answers: `screening` (the `userMessage` hooks read the follow-up) and `stopping` (the `stop`
// hooks may refuse the end of the turn). Every path ends with a dispose, so paths that stop in a hook wait
// check that the hook was aborted and the log ends cleanly.
import { describe, expect, it } from 'vitest';
import { turnMachine } from '../../src/machines/turn.ts';
import {
  stopHookLimits as limits,
  stopHookTurnEvents,
  type TurnSnapshot,
  turnInput,
  turnTestName,
} from './catalogues/turn.ts';
import { actorAt, createHarness, disposeAndCheck, type Harness } from './support/driver.ts';
import { HoldingHooks } from './support/holding-hooks.ts';
import { chartModel } from './support/model.ts';
import { answerFinal, harnessTurnStimuli, settled } from './support/stimuli.ts';

const graph = chartModel(turnMachine, {
  input: turnInput({ limits, step: { toolNames: [], hooks: { userMessage: true, stop: true } } }),
  events: stopHookTurnEvents,
  serializeState: ({ value, context }) =>
    JSON.stringify([
      value,
      context.stepCount,
      context.hookVerdicts.stopRefusals,
      context.cancelCause ?? null,
      context.reason ?? null,
    ]),
  limit: 5_000,
});
const paths = graph.shortestPaths();

function stimuli(harness: Harness, hooks: HoldingHooks) {
  return settled({
    'turn.begin': () => {
      harness.run = harness.agent.run('go');
      harness.run.catch(() => undefined);
    },
    'hook.userMessage': (event) =>
      hooks.answer(
        'userMessage:1',
        event.messages[0]?.blocked ? { decision: 'block', reason: 'no' } : undefined,
      ),
    'step.done': () => answerFinal(harness),
    'hook.stop': (event) =>
      hooks.answer('stop:1', event.refusal ? { decision: 'block', reason: event.refusal } : undefined),
    ...harnessTurnStimuli(harness),
  });
}

describe('turn chart graph paths with userMessage and stop hooks', () => {
  it('has the expected number of shortest paths', () => {
    // One path to each distinct state: through `screening` (pass, block, cancel), then up to
    // `maxStopRefusals` rounds of step → `stopping` (refuse, allow, cancel), the last step ending unasked.
    expect(paths).toHaveLength(31);
  });

  for (const path of paths) {
    it(turnTestName(path), async () => {
      const hooks = new HoldingHooks();
      const harness = await createHarness({ limits, hooks: hooks.hooks(['userMessage', 'stop']) });
      // Where the runtime rests, the real turn is where the path is, and the hook of that wait runs.
      const restsAt = (state: TurnSnapshot, hook?: string) => {
        if (state.context.cancelCause) return;
        expect(actorAt(harness, ['turn'])?.value).toEqual(state.value);
        if (hook) expect(hooks.waiting(hook)).toBe(true);
      };
      await graph.run(path, {
        events: stimuli(harness, hooks),
        states: {
          screening: (state) => restsAt(state, 'userMessage:1'),
          stepping: (state) => restsAt(state),
          stopping: (state) => restsAt(state, 'stop:1'),
        },
      });
      const expected = path.state;
      const over = expected.matches('done') || expected.matches('ending');
      if (harness.run && over) expect((await harness.run).reason).toBe(expected.context.reason);
      const refusals = harness.agent
        .log()
        .filter((event) => event.type === 'user.message' && !event.data.inboxId);
      expect(refusals).toHaveLength(expected.context.hookVerdicts.stopRefusals);
      await disposeAndCheck(harness);
      expect(hooks.stillRunning()).toEqual([]);
      if (harness.run && !over) expect((await harness.run).reason).toBe('canceled');
    });
  }
});
