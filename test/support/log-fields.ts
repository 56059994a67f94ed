// The fields of a log's events of one type, as rows: what a test compares with `toEqual` to say which
// calls ended how, which approvals were decided why, without repeating the filter and map each time.
import type { LogEvent, LogEventType } from '../../src/session/types.ts';

/** For each event of `type` in `log`, in order, the values of `fields` of its data. */
export function fieldsOf(log: readonly LogEvent[], type: LogEventType, ...fields: string[]): unknown[][] {
  return log.filter((event) => event.type === type).map((event) => fields.map((field) => event.data[field]));
}
