import { spawnChild, stopChild } from 'xstate';

/**
 * What a wait state is typed by: the creators a chart's `setup({...})` returns. Only their types are
 * read, so that the actor's name, its input and the transitions are checked against that chart.
 */
type ChartSetup = {
  spawnChild: (...args: never) => unknown;
  createStateConfig: (config: never) => unknown;
};

type SpawnArguments<TChart extends ChartSetup> = Parameters<TChart['spawnChild']>;
type StateConfig<TChart extends ChartSetup> = Parameters<TChart['createStateConfig']>[0];
type ActorName<TChart extends ChartSetup> = Extract<SpawnArguments<TChart>[0], string>;
type SpawnInput<TChart extends ChartSetup, TName> =
  NonNullable<Extract<SpawnArguments<TChart>, [TName, ...unknown[]]>[1]> extends { input?: infer TInput }
    ? TInput
    : never;

/** One wait: the actor it spawns, under which id, with what input, and the events that end it. */
export type Wait<TChart extends ChartSetup, TName extends ActorName<TChart>> = {
  src: TName;
  id: string;
  input: SpawnInput<TChart, TName>;
  /** Actions that run on entry before the actor is spawned (the log entries it must come after). */
  before?: StateConfig<TChart>['entry'];
  on: StateConfig<TChart>['on'];
};

/**
 * A state that waits for one actor's answer: the actor is spawned on entry and stopped on exit, so
 * whichever event leaves the state (the answer, a cancel) leaves nothing running behind it. The charts
 * spell every hook wait, flush, timer and setup stage this way.
 *
 * @example
 * screening: waitState(chart, {
 *   src: 'userMessageHook',
 *   id: 'hook',
 *   input: ({ context }) => screeningInput(context),
 *   on: { 'hook.userMessage': 'deciding', 'turn.cancel': 'ending' },
 * }),
 */
export function waitState<TChart extends ChartSetup, TName extends ActorName<TChart>>(
  _chart: TChart,
  wait: Wait<TChart, TName>,
): StateConfig<TChart> {
  const before = wait.before === undefined ? [] : Array.isArray(wait.before) ? wait.before : [wait.before];
  const spawn = spawnChild(wait.src as never, { id: wait.id, input: wait.input } as never);
  return { entry: [...before, spawn], exit: stopChild(wait.id), on: wait.on } as StateConfig<TChart>;
}
