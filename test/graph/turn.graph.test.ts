// Graph paths of the turn chart, each driven through the real runtime (one agent, gate model, gate tool,
// gated pre-step hook and a store gate that holds the turn's final flush so `ending` can be observed).
// The catalogue is the chart's own (catalogues/turn.ts); each path runs through an events table and a
// states table (support/resting-tables.ts, support/model.ts).
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/index.ts';
import type { StepOutcome } from '../../src/machines/step.ts';
import { type TurnEvent, turnMachine } from '../../src/machines/turn.ts';
import {
  labelTurnEvent,
  plainTurnEvents,
  type TurnSnapshot,
  turnInput,
  turnTestName,
} from './catalogues/turn.ts';
import { disposeAndVerify, expectInboxKept, expectResultsSoFar } from './support/agent-checks.ts';
import { AgentRig, openRequest, until } from './support/agent-driver.ts';
import { chartModel, type EventTable, eventsOf } from './support/model.ts';
import { restingTables } from './support/resting-tables.ts';

const limits = { maxSteps: 2, maxUnknownToolCalls: 2 };

/** Bounded key: state, the counters the limits read, waiting input, cancel, stop reason, a `continue`. */
function serializeState(snapshot: TurnSnapshot): string {
  const { stepCount, consecutiveUnknown, pending, cancelCause, reason, lastOutcome } = snapshot.context;
  return JSON.stringify([
    snapshot.value,
    stepCount,
    consecutiveUnknown,
    pending.length > 0,
    cancelCause !== undefined,
    reason ?? null,
    lastOutcome === 'continue',
  ]);
}

const graphFor = (hasHook: boolean) =>
  chartModel(turnMachine, {
    input: turnInput({ limits, preStepEveryStep: hasHook }),
    events: plainTurnEvents(hasHook),
    serializeState,
    limit: 5_000,
  });

const isAuto = (event: TurnEvent) => event.type === 'step.done' && event.output.outcome === 'canceled';

/** The turn states the runtime rests in, with the store holds that keep it there. */
function holdsFor(snapshot: TurnSnapshot): 'append'[] | undefined {
  if (snapshot.matches('ending')) return ['append'];
  if (snapshot.matches('stepping') && snapshot.context.cancelCause) return undefined;
  if (snapshot.matches({ preStep: 'hook' }) || snapshot.matches('stepping')) return [];
  return undefined;
}

type Driver = { rig: AgentRig; run: Promise<RunResult> | undefined; calls: number };

async function answerStep(driver: Driver, outcome: StepOutcome, unknown: boolean): Promise<void> {
  const request = await openRequest(driver.rig);
  if (outcome === 'tools') {
    const id = `c${++driver.calls}`;
    request.answer('', [{ id, name: unknown ? 'nope' : 'probe', input: { value: id } }]);
    if (unknown) return;
    const { probe } = driver.rig;
    const runs = await driver.rig.store.whileOpen(() => until(() => probe.running.has(id)));
    expect(runs, `${id} runs`).toBe(true);
    probe.finish(id);
  } else if (outcome === 'final') request.answer('Done.');
  else if (outcome === 'continue') request.delta('Part one.').done('pause_turn');
  else if (outcome === 'max_tokens') request.delta('Cut sho').done('max_tokens');
  else if (outcome === 'model_error') request.fail('auth');
  else throw new Error(`no stimulus for step outcome ${outcome}`);
}

function stimuli(driver: Driver): EventTable<typeof turnMachine> {
  const { rig } = driver;
  const hook = async (answer: undefined | { veto: string }) => {
    expect(await until(() => rig.hookGate.waiting > 0), 'the pre-step hook is waiting').toBe(true);
    rig.hookGate.answer(answer);
  };
  return {
    'turn.begin': () => {
      driver.run = rig.live.run('go');
    },
    'turn.cancel': (event) => rig.live.cancel(event.cause),
    'inbox.nextStep': () => void rig.live.steer('steer'),
    'hook.allow': () => hook(undefined),
    'hook.veto': (event) => hook({ veto: event.reason }),
    'step.done': (event) => answerStep(driver, event.output.outcome, event.output.unknownTools > 0),
    'log.flushed': () => rig.store.release('append'),
  };
}

/** The real turn's state and counters equal the path's where the runtime rests. */
async function expectTurnAt(rig: AgentRig, expected: TurnSnapshot, what: string): Promise<void> {
  const actual = () => rig.turnRef?.getSnapshot();
  await until(() => isDeepStrictEqual(actual()?.value, expected.value));
  const snapshot = actual();
  expect(snapshot?.value, what).toEqual(expected.value);
  const context = snapshot?.context as TurnSnapshot['context'];
  expect([context.stepCount, context.consecutiveUnknown], what).toEqual([
    expected.context.stepCount,
    expected.context.consecutiveUnknown,
  ]);
  expectInboxKept(rig);
  expectResultsSoFar(rig);
}

for (const hasHook of [false, true]) {
  const graph = graphFor(hasHook);
  const paths = graph.shortestPaths();
  describe(`turn chart graph paths (${hasHook ? 'with' : 'without'} a pre-step hook)`, () => {
    it('has the expected number of shortest paths', () => {
      expect(paths).toHaveLength(hasHook ? 45 : 65);
    });

    for (const path of paths) {
      it(turnTestName(path), async () => {
        const rig = new AgentRig({ hook: hasHook, limits });
        rig.launch();
        expect(await until(() => rig.agent !== undefined)).toBe(true);
        const driver: Driver = { rig, run: undefined, calls: 0 };
        const tables = restingTables(rig, path, {
          byItself: isAuto,
          holds: holdsFor,
          stimuli: stimuli(driver),
          check: (state, _index, what) => expectTurnAt(rig, state, what),
          label: labelTurnEvent,
        });
        await graph.run(path, tables);
        await disposeAndVerify(rig);
        // A run exists exactly when the path began a turn; only then is there a result to check.
        const begun = eventsOf(path).some((event) => event.type === 'turn.begin');
        expect(driver.run !== undefined, 'a run was started').toBe(begun);
        if (!driver.run) return;
        // A turn that the path did not end is ended by the dispose: canceled{disposed}.
        const result = await driver.run;
        expect(result.reason).toBe(path.state.context.reason ?? 'canceled');
        const ends = rig.live.log().filter((event) => event.type === 'turn.end' && event.turn === 1);
        expect(ends.map((event) => event.data.reason)).toEqual([result.reason]);
      });
    }
  });
}
