// What the graph suites that drive a plain harness (driver.ts) share: answering the model, and an
// events table whose every stimulus is followed by the runtime settling.
import type { AnyStateMachine } from 'xstate';
import { settle } from '../../support/controllable.ts';
import { currentRequest, type Harness, requestEnded } from './driver.ts';
import type { EventTable } from './model.ts';

/** The events table with each stimulus followed by the runtime settling (the real answer arrives). */
export function settled<M extends AnyStateMachine>(table: EventTable<M>): EventTable<M> {
  const out: Record<string, (...args: never[]) => Promise<void>> = {};
  for (const [type, stimulus] of Object.entries(table) as [string, (...args: never[]) => unknown][])
    out[type] = async (...args) => {
      await stimulus(...args);
      await settle();
    };
  return out as EventTable<M>;
}

/** What every turn suite on the harness gives alike: the agent's cancel, and a flush that passes by itself. */
export const harnessTurnStimuli = (harness: Harness) => ({
  'turn.cancel': () => harness.agent.cancel(),
  // The memory store flushes at once: `ending` passes by itself.
  'log.flushed': () => undefined,
});

/** The model's current request answers with `text` and no tool calls. */
export async function answerFinal(harness: Harness, text = 'Done.'): Promise<void> {
  (await currentRequest(harness)).answer(text);
  requestEnded(harness);
}
