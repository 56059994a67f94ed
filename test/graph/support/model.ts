// The graph suites' one road to xstate/graph's test model: a chart, its catalogue (test/graph/catalogues/)
// and a bounded key give the paths; each path is then run with two tables, what the real stimulus is for
// each event type (`events`) and what the runtime must show in each state (`states`, keyed as
// `snapshot.matches` reads them, `'*'` where no other key matches). Both are told where on the path they
// are, for runtimes that move on by themselves (a check waits until the runtime rests).
import type { AnyStateMachine, EventFromLogic, InputFrom, SnapshotFrom } from 'xstate';
import { createTestModel, type TestParam, type TestPath } from 'xstate/graph';

/** What can happen in a state, with sample payloads: the whole list (nothing else is sent there). */
export type Catalogue<M extends AnyStateMachine> = (snapshot: SnapshotFrom<M>) => EventFromLogic<M>[];

export type ChartModelOptions<M extends AnyStateMachine> = {
  input: InputFrom<M>;
  events: Catalogue<M>;
  /** The bounded state key; the event is the one that led to the snapshot. */
  serializeState: (snapshot: SnapshotFrom<M>, event: EventFromLogic<M> | undefined) => string;
  limit?: number;
};

export type ChartPath<M extends AnyStateMachine> = TestPath<SnapshotFrom<M>, EventFromLogic<M>>;
export type ChartStep<M extends AnyStateMachine> = ChartPath<M>['steps'][number];

/** Where a path is: the step being driven or checked, its index, and the path's steps after the start. */
export type PathAt<M extends AnyStateMachine> = {
  step: ChartStep<M>;
  index: number;
  steps: readonly ChartStep<M>[];
};

/** The real stimulus for each event type of a path: the event with its payload, and where it is. */
export type EventTable<M extends AnyStateMachine> = {
  [T in EventFromLogic<M>['type']]?: (
    event: Extract<EventFromLogic<M>, { type: T }>,
    at: PathAt<M>,
  ) => unknown;
};

/** What the runtime must show in a state, keyed by state (`'*'`: every state no other key matches). */
export type StateTable<M extends AnyStateMachine> = Record<
  string,
  (state: SnapshotFrom<M>, at: PathAt<M>) => unknown
>;

/** A chart's test model over its catalogue, and every path it has (none folded into a longer one). */
export function chartModel<M extends AnyStateMachine>(machine: M, options: ChartModelOptions<M>) {
  const { input, events, serializeState, limit = 10_000 } = options;
  const model = createTestModel(machine, {
    input,
    events,
    limit,
    serializeState: (snapshot, event) => serializeState(snapshot, event),
  });
  // Each path reaches its own state and is checked there, also when a longer path passes through it. The
  // catalogue is the whole list of what can happen in a state, in its order: the traversal takes it as it
  // is (the model's own list adds a bare event for each type the state handles and orders them by type,
  // which picks other paths among those of equal length).
  const every = { allowDuplicatePaths: true, events };
  const shortestPaths = () => model.getShortestPaths(every) as ChartPath<M>[];
  const simplePaths = () => model.getSimplePaths(every) as ChartPath<M>[];

  /**
   * Runs one path through the tables. The first step is the chart's initial snapshot, where every
   * harness starts: there is nothing to drive or compare before the first event.
   */
  async function run(path: ChartPath<M>, tables: { events: EventTable<M>; states?: StateTable<M> }) {
    const steps = path.steps.slice(1);
    for (const { event } of steps)
      if (!(event.type in tables.events)) throw new Error(`no stimulus for ${event.type}`);
    // The model drives a step, then checks its state: the check is where the last stimulus left the path.
    let at: PathAt<M> = { step: path.steps[0]!, index: -1, steps };
    const stimuli: Record<string, (step: ChartStep<M>) => unknown> = {};
    for (const [type, stimulus] of Object.entries(tables.events))
      stimuli[type] = (step) => {
        at = { step, index: at.index + 1, steps };
        return (stimulus as (event: unknown, at: PathAt<M>) => unknown)(step.event, at);
      };
    const states: Record<string, (state: SnapshotFrom<M>) => unknown> = {};
    for (const [key, check] of Object.entries(tables.states ?? {})) states[key] = (state) => check(state, at);
    const params = { events: stimuli, states };
    await model.testPath({ ...path, steps }, params as TestParam<SnapshotFrom<M>, EventFromLogic<M>>);
  }

  return { model, shortestPaths, simplePaths, run };
}

/** The events of a path after the initial snapshot. */
export const eventsOf = <M extends AnyStateMachine>(path: ChartPath<M>) =>
  path.steps.slice(1).map((step) => step.event);

/** A path's name for its test: each event's label, joined, or `empty` for the initial snapshot. */
export function pathName<M extends AnyStateMachine>(
  path: ChartPath<M>,
  label: (event: EventFromLogic<M>) => string,
  options: { join: string; empty: string },
): string {
  return eventsOf(path).map(label).join(options.join) || options.empty;
}
