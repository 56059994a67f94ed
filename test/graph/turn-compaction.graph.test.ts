// Graph paths of the turn chart through its compacting state, each driven through the real runtime: a
// gate model on a 1,000-token window (a step that reports 900 tokens fills it past the 0.8 threshold),
// `agent.compact()` at every resting state, and a cancel while the summary streams.
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import type { CompactResult, RunResult } from '../../src/index.ts';
import type { StepOutcome } from '../../src/machines/step.ts';
import { type TurnEvent, type TurnInput, turnMachine } from '../../src/machines/turn.ts';
import { emptyUsage } from '../../src/providers/types.ts';
import { isCompactionRequest } from '../../src/session/compaction-request.ts';
import type { PendingRequest } from '../support/controllable.ts';
import { disposeAndVerify, expectInboxKept, expectResultsSoFar } from './support/agent-checks.ts';
import { AgentRig, settleAll, until } from './support/agent-driver.ts';

type Snapshot = SnapshotFrom<typeof turnMachine>;
type Step = { event: TurnEvent; state: Snapshot };

const window = 1_000;
const full = 900;
const limits = { maxSteps: 3, maxUnknownToolCalls: 2 };
const input: TurnInput = {
  agentKey: 'agent:a',
  turn: 1,
  followups: [{ id: 'id2', channel: 'followup', message: 'go' }],
  nextStep: [],
  limits,
  preStepEveryStep: false,
  step: {
    ...{ model: 'gate-model', toolNames: ['probe'], systemHash: 'h', maxParallelTools: 10 },
    ...{ jitterKey: 'a', compactOnOverflow: true },
  },
  compaction: { enabled: true, threshold: 0.8 },
  contextUsage: { usedTokens: 0, contextWindow: window },
  compactionTried: false,
};

const stepDone = (outcome: StepOutcome, usedTokens?: number): TurnEvent => ({
  type: 'step.done',
  output: {
    outcome,
    toolCalls: outcome === 'tools' ? 1 : 0,
    unknownTools: 0,
    usage: emptyUsage,
    ...(usedTokens !== undefined ? { usedTokens } : {}),
  },
});

/**
 * Whether the runtime's planner finds something in this turn (the session's only one): the turn has two
 * steps or more behind it (the latest is kept) and no compaction ran since the latest.
 */
const planFinds = (snapshot: Snapshot) =>
  snapshot.context.stepCount >= 2 && !snapshot.context.compacting.tried;

/** The states the runtime rests in: a step or a summary waiting for the model, and `ending` (held flush). */
function resting(snapshot: Snapshot): boolean {
  if (snapshot.context.cancelCause) return snapshot.matches('ending');
  return (
    snapshot.matches('stepping') ||
    (snapshot.matches('compacting') && planFinds(snapshot)) ||
    snapshot.matches('ending')
  );
}

function events(snapshot: Snapshot): TurnEvent[] {
  const { cancelCause } = snapshot.context;
  const out: TurnEvent[] = [];
  if (snapshot.matches('created')) out.push({ type: 'turn.begin' });
  if (resting(snapshot)) {
    if (!cancelCause) out.push({ type: 'turn.cancel', cause: 'user' });
    out.push({ type: 'turn.compact' });
  }
  if (snapshot.matches('stepping')) {
    if (cancelCause) out.push(stepDone('canceled'));
    else out.push(stepDone('tools', 100), stepDone('tools', full), stepDone('final', 100));
  }
  if (snapshot.matches('compacting')) {
    if (cancelCause) out.push(stepDone('canceled'));
    else if (planFinds(snapshot)) out.push(stepDone('compacted'), stepDone('model_error'));
    else out.push(stepDone('nothing_to_compact'));
  }
  if (snapshot.matches('ending')) out.push({ type: 'log.flushed' });
  return out;
}

/** Bounded key: state, steps, cancel, reason, the compaction flags and whether the window is full. */
function serializeState(snapshot: Snapshot): string {
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

const paths = getShortestPaths(turnMachine, {
  input,
  events,
  serializeState: (snapshot) => serializeState(snapshot as Snapshot),
  limit: 5_000,
});

const label = (event: TurnEvent): string => {
  if (event.type !== 'step.done') return event.type;
  const full = (event.output.usedTokens ?? 0) >= 800 ? '(full)' : '';
  return `step:${event.output.outcome}${full}`;
};

/** Events the runtime produces by itself: a summary with nothing to summarise, a canceled step. */
const isAuto = (event: TurnEvent) =>
  event.type === 'step.done' &&
  (event.output.outcome === 'canceled' || event.output.outcome === 'nothing_to_compact');

type Driver = { rig: AgentRig; run?: Promise<RunResult>; asked: Promise<CompactResult>[]; calls: number };

async function openRequest(rig: AgentRig): Promise<PendingRequest> {
  const open = () => rig.model.requests.find((request) => !request.finished && !request.aborted);
  expect(await until(() => open() !== undefined), 'a model request is waiting').toBe(true);
  return open()!;
}

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

async function stimulate(driver: Driver, event: TurnEvent): Promise<void> {
  const { rig } = driver;
  switch (event.type) {
    case 'turn.begin':
      driver.run = rig.live.run('go');
      return;
    case 'turn.cancel':
      return rig.live.cancel(event.cause);
    case 'turn.compact':
      driver.asked.push(rig.live.compact());
      return;
    case 'step.done':
      return answer(driver, event.output);
    case 'log.flushed':
      return rig.store.release('append');
    default:
      throw new Error(`no stimulus for ${event.type}`);
  }
}

async function drive(driver: Driver, steps: Step[]): Promise<void> {
  const { rig } = driver;
  let held: 'append'[] = [];
  for (let i = 0; i < steps.length; i++) {
    if (isAuto(steps[i]!.event)) continue;
    let j = i;
    while (j + 1 < steps.length && isAuto(steps[j + 1]!.event)) j++;
    const settled = steps[j]!.state;
    const holds: 'append'[] | undefined = settled.matches('ending')
      ? ['append']
      : resting(settled)
        ? []
        : undefined;
    rig.store.holdOnly([...held, ...(holds ?? [])]);
    await stimulate(driver, steps[i]!.event);
    held = holds ?? [];
    rig.store.holdOnly(held);
    await settleAll();
    if (holds === undefined) continue;
    const what = `after ${label(steps[i]!.event)}`;
    await until(() => isDeepStrictEqual(rig.turnRef?.getSnapshot().value, settled.value));
    const actual = rig.turnRef?.getSnapshot();
    expect(actual?.value, what).toEqual(settled.value);
    const context = actual?.context as Snapshot['context'];
    const expected = settled.context;
    expect([context.stepCount, context.compacting.tried, context.compacting.serving], what).toEqual([
      expected.stepCount,
      expected.compacting.tried,
      expected.compacting.serving,
    ]);
    expectInboxKept(rig);
    expectResultsSoFar(rig);
  }
}

describe('turn chart graph paths through compacting', () => {
  it('has the expected number of shortest paths', () => {
    expect(paths).toHaveLength(125);
  });

  for (const path of paths) {
    const steps = path.steps.slice(1) as Step[];
    const name = steps.map((step) => label(step.event)).join(' > ') || '(created)';
    it(`${name} → ${JSON.stringify(path.state.value)}`, async () => {
      const rig = new AgentRig({ limits, contextWindow: window, compaction: { keepRecentTurns: 1 } });
      rig.launch();
      expect(await until(() => rig.agent !== undefined)).toBe(true);
      const driver: Driver = { rig, asked: [], calls: 0 };
      await drive(driver, steps);
      const turnOne = rig.live.log().filter((event) => event.turn === 1);
      // Every compaction the path went through is logged once, with the trigger it served.
      const compacted = steps.filter(
        (step) => step.event.type === 'step.done' && step.event.output.outcome === 'compacted',
      );
      const triggers = compacted.map((step) => {
        const index = steps.indexOf(step);
        return (index > 0 ? steps[index - 1]!.state : undefined)?.context.compacting.serving?.trigger;
      });
      expect(
        turnOne.filter((event) => event.type === 'compaction').map((event) => event.data.trigger),
      ).toEqual(triggers);
      await disposeAndVerify(rig);
      const begun = steps.some((step) => step.event.type === 'turn.begin');
      expect(driver.run !== undefined).toBe(begun);
      if (!driver.run) return;
      const result = await driver.run;
      expect(result.reason).toBe((path.state as Snapshot).context.reason ?? 'canceled');
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
