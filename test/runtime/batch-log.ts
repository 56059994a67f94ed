// The log of one turn as compact tuples, and its fixed opening and closing, for the batch tests.
import { type Harness, type LogTuple, logTuples } from '../graph/support/driver.ts';

/** The log from the turn's start on, as `[type, callId?, outcome?]` tuples. */
export const fromTurnStart = (harness: Harness): LogTuple[] => {
  const log = harness.agent.log();
  return logTuples(
    log,
    log.findIndex((event) => event.type === 'turn.start'),
  );
};

export const opening: LogTuple[] = [
  ['turn.start'],
  ['inbox.claimed'],
  ['user.message'],
  ['step.start'],
  ['assistant.message'],
];
export const closing: LogTuple[] = [['step.end'], ['turn.end']];
export const probeCall = (id: string, value = id) => ({ id, name: 'probe', input: { value } });
