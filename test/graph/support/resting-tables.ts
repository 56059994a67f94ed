// The events and states tables of the suites that drive the agent rig (agent-driver.ts): its runtime passes
// some of a path's events by itself (a stage that ends within its tick, a canceled step), and it rests only
// where the gate store holds it or where it waits for the outside world. So each outside stimulus is given
// with the store already holding what the next resting state needs, the events the runtime makes itself
// are not driven, and a state is compared only where the runtime rests.
import type { AnyStateMachine, EventFromLogic, SnapshotFrom } from 'xstate';
import type { AgentRig } from './agent-driver.ts';
import { settleAll } from './agent-driver.ts';
import type { StoreOp } from './gate-store.ts';
import type { ChartPath, EventTable, PathAt, StateTable } from './model.ts';

export type RestingPlan<M extends AnyStateMachine> = {
  /** An event the runtime makes by itself right after the previous stimulus: nothing to drive. */
  byItself(event: EventFromLogic<M>): boolean;
  /**
   * What the gate store holds while the runtime rests after step `index` (-1: the start), or undefined
   * where it does not rest there.
   */
  holds(state: SnapshotFrom<M>, index: number): StoreOp[] | undefined;
  /** The outside stimuli; an event type the runtime only makes by itself needs none. */
  stimuli: EventTable<M>;
  /** Compares the real runtime with the path where it rests; `what` names the stimulus that led there. */
  check(state: SnapshotFrom<M>, index: number, what: string): unknown;
  label(event: EventFromLogic<M>): string;
};

export function restingTables<M extends AnyStateMachine>(
  rig: AgentRig,
  path: ChartPath<M>,
  plan: RestingPlan<M>,
) {
  const initial = path.steps[0]!.state;
  const steps = path.steps.slice(1);
  const stateAt = (index: number) => (index < 0 ? initial : steps[index]!.state);
  const movesOn = (index: number) => index + 1 < steps.length && plan.byItself(steps[index + 1]!.event);
  const holdsAt = (index: number) => plan.holds(stateAt(index), index);
  let held: StoreOp[] = [];
  let what = 'after start';

  /** One outside stimulus: keep holding what it may release, already hold what the next rest needs. */
  async function outside(index: number, stimulus: () => unknown): Promise<void> {
    let rest = index;
    while (movesOn(rest)) rest++;
    const holds = holdsAt(rest);
    rig.store.holdOnly([...held, ...(holds ?? [])]);
    await stimulus();
    held = holds ?? [];
    rig.store.holdOnly(held);
    await settleAll();
    what = `after ${index < 0 ? 'launch' : plan.label(steps[index]!.event)}`;
  }

  async function restsAt(index: number): Promise<void> {
    if (movesOn(index) || holdsAt(index) === undefined) return;
    await plan.check(stateAt(index), index, what);
  }

  const events: Record<string, (event: EventFromLogic<M>, at: PathAt<M>) => unknown> = {};
  for (const step of steps) {
    const type = step.event.type as EventFromLogic<M>['type'];
    const stimulus = plan.stimuli[type] as ((event: unknown, at: PathAt<M>) => unknown) | undefined;
    events[type] = (event, at) => {
      if (plan.byItself(event)) return;
      if (!stimulus) throw new Error(`no stimulus for ${event.type}`);
      return outside(at.index, () => stimulus(event, at));
    };
  }
  const states: StateTable<M> = { '*': (_state, { index }) => restsAt(index) };
  return {
    /** Starts the runtime (`launch`) as an outside stimulus, and checks where it rests first. */
    start: async (launch: () => unknown) => {
      await outside(-1, launch);
      await restsAt(-1);
    },
    events: events as EventTable<M>,
    states,
  };
}
