// Graph paths of the turn chart through its compacting state, each driven through the real runtime: a
// gate model on a 1,000-token window (a step that reports 900 tokens fills it past the 0.8 threshold),
// `agent.compact()` at every resting state, and a cancel while the summary streams. The catalogue is the
// chart's own (catalogues/turn.ts); each path runs through an events table and a states table
// (support/resting-tables.ts, support/model.ts).
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { CompactResult, RunResult } from '../../src/index.ts';
import type { StepOutcome } from '../../src/machines/step.ts';
import { type TurnEvent, turnMachine } from '../../src/machines/turn.ts';
import { isCompactionRequest } from '../../src/session/compaction-request.ts';
import {
  compactionResting,
  compactionTurnEvents,
  compactionWindow,
  labelTurnEvent,
  type TurnSnapshot,
  turnInput,
  turnTestName,
} from './catalogues/turn.ts';
import { disposeAndVerify, expectInboxKept, expectResultsSoFar } from './support/agent-checks.ts';
import { AgentRig, openRequest, until } from './support/agent-driver.ts';
import { chartModel, type EventTable, eventsOf } from './support/model.ts';
import { restingTables } from './support/resting-tables.ts';

const { window } = compactionWindow;
const limits = { maxSteps: 3, maxUnknownToolCalls: 2 };

/** Bounded key: state, steps, cancel, reason, the compaction flags and whether the window is full. */
function serializeState(snapshot: TurnSnapshot): string {
  const { context } = snapshot;
  return JSON.stringify([
    snapshot.value,
    context.stepCount,
    context.cancelCause !== undefined,
    context.reason ?? null,
    context.compacting.tried,
    context.compacting.request !== undefined,
    context.compacting.serving?.trigger ?? null,
    context.compacting.usage.usedTokens >= 800,
  ]);
}

const graph = chartModel(turnMachine, {
  input: turnInput({
    limits,
    step: { compactOnOverflow: true },
    compaction: { enabled: true, threshold: 0.8 },
    contextUsage: { usedTokens: 0, contextWindow: window },
    compactionTried: false,
  }),
  events: compactionTurnEvents,
  serializeState,
  limit: 5_000,
});
const paths = graph.shortestPaths();

/** Events the runtime produces by itself: a summary with nothing to summarise, a canceled step. */
const isAuto = (event: TurnEvent) =>
  event.type === 'step.done' &&
  (event.output.outcome === 'canceled' || event.output.outcome === 'nothing_to_compact');

/** Where the runtime rests: a held flush in `ending`, or a step or a summary waiting for the model. */
const holdsFor = (snapshot: TurnSnapshot): 'append'[] | undefined =>
  snapshot.matches('ending') ? ['append'] : compactionResting(snapshot) ? [] : undefined;

type Driver = { rig: AgentRig; run?: Promise<RunResult>; asked: Promise<CompactResult>[]; calls: number };

async function answer(driver: Driver, output: { outcome: StepOutcome; usedTokens?: number }): Promise<void> {
  const request = await openRequest(driver.rig);
  const summary = isCompactionRequest(request.request);
  expect(summary, 'a summary is asked for exactly when the path compacts').toBe(
    output.outcome === 'compacted' || output.outcome === 'model_error',
  );
  if (output.outcome === 'compacted') return void request.answer('Summary.');
  if (output.outcome === 'model_error') return void request.fail('auth');
  const usage = { inputTokens: output.usedTokens ?? 1, outputTokens: 1 };
  if (output.outcome === 'final') return void request.delta('Done.').done('end_turn', usage);
  const id = `c${++driver.calls}`;
  request.toolCall(id, 'probe', { value: id }).done('tool_use', usage);
  const { probe } = driver.rig;
  expect(await driver.rig.store.whileOpen(() => until(() => probe.running.has(id))), `${id} runs`).toBe(true);
  probe.finish(id);
}

function stimuli(driver: Driver): EventTable<typeof turnMachine> {
  const { rig } = driver;
  return {
    'turn.begin': () => {
      driver.run = rig.live.run('go');
    },
    'turn.cancel': (event) => rig.live.cancel(event.cause),
    'turn.compact': () => void driver.asked.push(rig.live.compact()),
    'step.done': (event) => answer(driver, event.output),
    'log.flushed': () => rig.store.release('append'),
  };
}

/** The real turn's state and compaction record equal the path's where the runtime rests. */
async function expectTurnAt(rig: AgentRig, settled: TurnSnapshot, what: string): Promise<void> {
  await until(() => isDeepStrictEqual(rig.turnRef?.getSnapshot().value, settled.value));
  const actual = rig.turnRef?.getSnapshot();
  expect(actual?.value, what).toEqual(settled.value);
  const context = actual?.context as TurnSnapshot['context'];
  const expected = settled.context;
  expect([context.stepCount, context.compacting.tried, context.compacting.serving], what).toEqual([
    expected.stepCount,
    expected.compacting.tried,
    expected.compacting.serving,
  ]);
  expectInboxKept(rig);
  expectResultsSoFar(rig);
}

describe('turn chart graph paths through compacting', () => {
  it('has the expected number of shortest paths', () => {
    expect(paths).toHaveLength(125);
  });

  for (const path of paths) {
    const steps = path.steps.slice(1);
    it(turnTestName(path), async () => {
      const rig = new AgentRig({ limits, contextWindow: window, compaction: { keepRecentTurns: 1 } });
      rig.launch();
      expect(await until(() => rig.agent !== undefined)).toBe(true);
      const driver: Driver = { rig, asked: [], calls: 0 };
      const tables = restingTables(rig, path, {
        byItself: isAuto,
        holds: holdsFor,
        stimuli: stimuli(driver),
        check: (state, _index, what) => expectTurnAt(rig, state, what),
        label: labelTurnEvent,
      });
      await graph.run(path, tables);
      const turnOne = rig.live.log().filter((event) => event.turn === 1);
      // Every compaction the path went through is logged once, with the trigger it served.
      const triggers = steps.flatMap((step, index) =>
        step.event.type === 'step.done' && step.event.output.outcome === 'compacted'
          ? [path.steps[index]!.state.context.compacting.serving?.trigger]
          : [],
      );
      expect(
        turnOne.filter((event) => event.type === 'compaction').map((event) => event.data.trigger),
      ).toEqual(triggers);
      await disposeAndVerify(rig);
      const begun = eventsOf(path).some((event) => event.type === 'turn.begin');
      expect(driver.run !== undefined).toBe(begun);
      if (!driver.run) return;
      const result = await driver.run;
      expect(result.reason).toBe(path.state.context.reason ?? 'canceled');
      // Every agent.compact() of the path was answered (dispose answers the ones still waiting): with a
      // compaction the host asked for, or why there was none.
      const manual = rig.live
        .log()
        .filter((event) => event.type === 'compaction' && event.data.trigger === 'manual')
        .map((event) => event.data.replaces);
      for (const result of await Promise.all(driver.asked)) {
        if (result.compacted) expect(manual).toContainEqual(result.replaces);
        else expect(['nothing_to_compact', 'canceled', 'model_error']).toContain(result.reason);
      }
    });
  }
});
