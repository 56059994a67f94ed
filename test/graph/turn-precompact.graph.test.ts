// Graph paths of the turn chart's `preCompacting` wait, driven through the real runtime: a turn that only
// compacts (`agent.compact()` after two answered turns) first tells the `preCompact` hooks (a holding hook
// the driver answers), then streams the summary. A cancel while the hook runs or while the summary
// streams ends the turn; every path ends with a dispose that checks the hook was aborted and the log.
import { describe, expect, it } from 'vitest';
import { turnMachine } from '../../src/machines/turn.ts';
import { isCompactionRequest } from '../../src/session/compaction-request.ts';
import {
  cancelledFrom,
  preCompactTurnEvents,
  type TurnSnapshot,
  turnInput,
  turnTestName,
} from './catalogues/turn.ts';
import { actorAt, createHarness, currentRequest, disposeAndCheck, type Harness } from './support/driver.ts';
import { HoldingHooks } from './support/holding-hooks.ts';
import { chartModel, eventsOf } from './support/model.ts';
import { answerFinal, harnessTurnStimuli, settled } from './support/stimuli.ts';

const graph = chartModel(turnMachine, {
  input: turnInput({
    turn: 3,
    followups: [],
    limits: { maxSteps: 3, maxUnknownToolCalls: 2 },
    step: { toolNames: [], hooks: { preCompact: true } },
    compaction: { enabled: true, threshold: 0.8 },
    contextUsage: { usedTokens: 0, contextWindow: 32_000 },
    compactionTried: false,
    compactRequest: {},
  }),
  events: preCompactTurnEvents,
  serializeState: ({ value, context }, event) =>
    JSON.stringify([value, context.cancelCause ?? null, context.reason ?? null, cancelledFrom(event)]),
  limit: 1_000,
});
const paths = graph.shortestPaths();

/** Two answered turns, so the compaction has an older one to summarise. */
async function twoTurns(harness: Harness): Promise<void> {
  for (const message of ['one', 'two']) {
    const run = harness.agent.run(message);
    await answerFinal(harness, `Answer ${message}.`);
    await run;
  }
}

function stimuli(harness: Harness, hooks: HoldingHooks) {
  return settled({
    'turn.begin': () => void harness.agent.compact().catch(() => undefined),
    'hook.preCompact': () => hooks.answer('preCompact:3', undefined),
    'step.done': async () => {
      expect(isCompactionRequest((await currentRequest(harness)).request)).toBe(true);
      await answerFinal(harness, 'Summary.');
    },
    ...harnessTurnStimuli(harness),
  });
}

describe('turn chart graph paths through preCompacting', () => {
  it('has the expected number of shortest paths', () => {
    // begin → preCompacting (answer, cancel) → compacting (summary, cancel) → ending → done.
    expect(paths).toHaveLength(8);
  });

  for (const path of paths) {
    it(turnTestName(path), async () => {
      const hooks = new HoldingHooks();
      const harness = await createHarness({ hooks: hooks.hooks(['preCompact']) });
      await twoTurns(harness);
      const restsAt = (state: TurnSnapshot) => {
        if (!state.context.cancelCause) expect(actorAt(harness, ['turn'])?.value).toEqual(state.value);
      };
      await graph.run(path, {
        events: stimuli(harness, hooks),
        states: {
          preCompacting: (state) => {
            restsAt(state);
            if (!state.context.cancelCause) expect(hooks.waiting('preCompact:3')).toBe(true);
          },
          compacting: restsAt,
        },
      });
      const log = harness.agent.log();
      const events = eventsOf(path);
      const answered = events.some((event) => event.type === 'hook.preCompact');
      expect(log.filter((event) => event.type === 'hook.decided')).toHaveLength(answered ? 1 : 0);
      const summarised = events.some((event) => event.type === 'step.done');
      expect(log.filter((event) => event.type === 'compaction')).toHaveLength(summarised ? 1 : 0);
      await disposeAndCheck(harness);
      expect(hooks.stillRunning()).toEqual([]);
    });
  }
});
