// Graph paths of the turn chart, each driven through the real runtime (one agent, gate model, gate tool,
// gated pre-step hook and a store gate that holds the turn's final flush so `ending` can be observed).
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import type { RunResult } from '../../src/index.ts';
import type { StepOutcome } from '../../src/machines/step.ts';
import { type TurnEvent, type TurnInput, turnMachine } from '../../src/machines/turn.ts';
import { emptyUsage } from '../../src/providers/types.ts';
import type { PendingRequest } from '../support/controllable.ts';
import { disposeAndVerify, expectInboxKept, expectResultsSoFar } from './support/agent-checks.ts';
import { AgentRig, settleAll, until } from './support/agent-driver.ts';

type Snapshot = SnapshotFrom<typeof turnMachine>;
type Step = { event: TurnEvent; state: Snapshot };

const limits = { maxSteps: 2, maxUnknownToolCalls: 2 };
const usage = { ...emptyUsage, inputTokens: 1, outputTokens: 1 };

const inputFor = (preStepEveryStep: boolean): TurnInput => ({
  agentKey: 'agent:a',
  turn: 1,
  followups: [{ id: 'id2', channel: 'followup', message: 'go' }],
  nextStep: [],
  limits,
  preStepEveryStep,
  step: { model: 'gate-model', toolNames: ['probe'], systemHash: 'h', maxParallelTools: 10, jitterKey: 'a' },
});

const stepDone = (outcome: StepOutcome, toolCalls = 0, unknownTools = 0): TurnEvent => ({
  type: 'step.done',
  output: { outcome, toolCalls, unknownTools, usage },
});

const allOutcomes = [
  stepDone('tools', 1),
  stepDone('tools', 1, 1),
  stepDone('final'),
  stepDone('continue'),
  stepDone('max_tokens'),
  stepDone('model_error'),
];

/**
 * The event catalogue. `created`, `starting`, `deciding` and a canceled `stepping` pass within one tick
 * in the runtime, so outside events are offered only in `preStep.hook`, `stepping` and `ending`. With a
 * hook the step outcomes are narrowed to tools/final (the limits are covered without the hook).
 */
function eventsFor(hasHook: boolean) {
  return (snapshot: Snapshot): TurnEvent[] => {
    const { cancelCause } = snapshot.context;
    const out: TurnEvent[] = [];
    if (snapshot.matches('created')) out.push({ type: 'turn.begin' });
    const resting =
      snapshot.matches({ preStep: 'hook' }) ||
      (snapshot.matches('stepping') && !cancelCause) ||
      snapshot.matches('ending');
    if (resting && !cancelCause) out.push({ type: 'turn.cancel', cause: 'user' });
    if (resting)
      out.push({ type: 'inbox.nextStep', items: [{ id: 'n', channel: 'steer', message: 'steer' }] });
    if (snapshot.matches({ preStep: 'hook' }))
      out.push({ type: 'hook.allow' }, { type: 'hook.veto', reason: 'not now' });
    if (snapshot.matches('stepping')) {
      if (cancelCause) out.push(stepDone('canceled'));
      else out.push(...(hasHook ? [stepDone('tools', 1), stepDone('final')] : allOutcomes));
    }
    if (snapshot.matches('ending')) out.push({ type: 'log.flushed' });
    return out;
  };
}

/** Bounded key: state, the counters the limits read, waiting input, cancel, stop reason, a `continue`. */
function serializeState(snapshot: Snapshot): string {
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

function pathsFor(hasHook: boolean) {
  return getShortestPaths(turnMachine, {
    input: inputFor(hasHook),
    events: eventsFor(hasHook),
    serializeState: (snapshot) => serializeState(snapshot as Snapshot),
    limit: 5_000,
  });
}

const label = (event: TurnEvent): string => {
  if (event.type !== 'step.done') return event.type;
  const { outcome, unknownTools } = event.output;
  return `step:${outcome}${unknownTools > 0 ? '(unknown tool)' : ''}`;
};

const isAuto = (event: TurnEvent) => event.type === 'step.done' && event.output.outcome === 'canceled';

/** The turn states the runtime rests in, with the store holds that keep it there. */
function holdsFor(snapshot: Snapshot): 'append'[] | undefined {
  if (snapshot.matches('ending')) return ['append'];
  if (snapshot.matches('stepping') && snapshot.context.cancelCause) return undefined;
  if (snapshot.matches({ preStep: 'hook' }) || snapshot.matches('stepping')) return [];
  return undefined;
}

type Driver = { rig: AgentRig; run: Promise<RunResult> | undefined; calls: number };

async function openRequest(rig: AgentRig): Promise<PendingRequest> {
  const open = () => rig.model.requests.find((request) => !request.finished && !request.aborted);
  expect(await until(() => open() !== undefined), 'a model request is waiting').toBe(true);
  return open()!;
}

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

async function stimulate(driver: Driver, event: TurnEvent): Promise<void> {
  const { rig } = driver;
  switch (event.type) {
    case 'turn.begin':
      driver.run = rig.live.run('go');
      return;
    case 'turn.cancel':
      return rig.live.cancel(event.cause);
    case 'inbox.nextStep':
      return void rig.live.steer('steer');
    case 'hook.allow':
    case 'hook.veto':
      expect(await until(() => rig.hookGate.waiting > 0), 'the pre-step hook is waiting').toBe(true);
      return rig.hookGate.answer(event.type === 'hook.veto' ? { veto: event.reason } : undefined);
    case 'step.done':
      return answerStep(driver, event.output.outcome, event.output.unknownTools > 0);
    case 'log.flushed':
      return rig.store.release('append');
  }
}

/** The real turn's state and counters equal the path's where the runtime rests. */
async function expectTurnAt(rig: AgentRig, expected: Snapshot, what: string): Promise<void> {
  const actual = () => rig.turnRef?.getSnapshot();
  await until(() => isDeepStrictEqual(actual()?.value, expected.value));
  const snapshot = actual();
  expect(snapshot?.value, what).toEqual(expected.value);
  const context = snapshot?.context as Snapshot['context'];
  expect([context.stepCount, context.consecutiveUnknown], what).toEqual([
    expected.context.stepCount,
    expected.context.consecutiveUnknown,
  ]);
}

async function drive(driver: Driver, steps: Step[]): Promise<void> {
  const { rig } = driver;
  let held: 'append'[] = [];
  for (let i = 0; i < steps.length; i++) {
    if (isAuto(steps[i]!.event)) continue;
    let j = i;
    while (j + 1 < steps.length && isAuto(steps[j + 1]!.event)) j++;
    const settled = steps[j]!.state;
    const holds = holdsFor(settled);
    rig.store.holdOnly([...held, ...(holds ?? [])]);
    await stimulate(driver, steps[i]!.event);
    held = holds ?? [];
    rig.store.holdOnly(held);
    await settleAll();
    if (holds === undefined) continue;
    await expectTurnAt(rig, settled, `after ${label(steps[i]!.event)}`);
    expectInboxKept(rig);
    expectResultsSoFar(rig);
  }
}

for (const hasHook of [false, true]) {
  const paths = pathsFor(hasHook);
  describe(`turn chart graph paths (${hasHook ? 'with' : 'without'} a pre-step hook)`, () => {
    it('has the expected number of shortest paths', () => {
      expect(paths).toHaveLength(hasHook ? 45 : 65);
    });

    for (const path of paths) {
      const steps = path.steps.slice(1) as Step[];
      const name = steps.map((step) => label(step.event)).join(' > ') || '(created)';
      it(`${name} → ${JSON.stringify(path.state.value)}`, async () => {
        const rig = new AgentRig({ hook: hasHook, limits });
        rig.launch();
        expect(await until(() => rig.agent !== undefined)).toBe(true);
        const driver: Driver = { rig, run: undefined, calls: 0 };
        await drive(driver, steps);
        await disposeAndVerify(rig);
        // A run exists exactly when the path began a turn; only then is there a result to check.
        const begun = steps.some((step) => step.event.type === 'turn.begin');
        expect(driver.run !== undefined, 'a run was started').toBe(begun);
        if (!driver.run) return;
        // A turn that the path did not end is ended by the dispose: canceled{disposed}.
        const result = await driver.run;
        expect(result.reason).toBe((path.state as Snapshot).context.reason ?? 'canceled');
        const ends = rig.live.log().filter((event) => event.type === 'turn.end' && event.turn === 1);
        expect(ends.map((event) => event.data.reason)).toEqual([result.reason]);
      });
    }
  });
}
