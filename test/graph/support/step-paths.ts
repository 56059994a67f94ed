// Pure helpers of the step chart's graph-path test: how a path is set up in the runtime, and the
// assistant messages a path must leave in the log.
import type { StepEvent, stepMachine } from '../../../src/machines/step.ts';
import { type StepSnapshot, streamedSample } from '../catalogues/step.ts';
import { type ChartPath, eventsOf } from './model.ts';

type Path = ChartPath<typeof stepMachine>;

/**
 * How the path is set up in the runtime. A path that summarises something needs a conversation before
 * its own turn: two answered turns, since one turn with messages is kept (a turn that only compacts has
 * none), so the first can be summarised. A path where the planner finds nothing runs on a new session.
 * A compaction step is what `agent.compact()` starts.
 */
export function setupOf(path: Path) {
  const events = eventsOf(path);
  const prepared = !events.some((event) => event.type === 'compaction.skipped');
  return { prepared, turn: prepared ? 3 : 1 };
}

/** What the step's assistant messages must be at the end of the path: text and whether interrupted. */
export function expectedMessages(path: Path): [string, boolean][] {
  const messages: [string, boolean][] = [];
  let text = '';
  for (const event of eventsOf(path) as StepEvent[]) {
    if (event.type === 'model.streaming') text += streamedSample;
    if (event.type === 'model.done') messages.push([text, false]);
    if (event.type === 'model.error' || event.type === 'retry.due') text = '';
    if (event.type === 'model.interrupted') messages.push([event.text, true]);
  }
  // A path that stops in `interrupting` still ends: the real model call hands its text over at once.
  const last = path.steps.at(-1)?.state as StepSnapshot | undefined;
  if (last?.matches('interrupting')) messages.push([text, true]);
  return messages;
}
