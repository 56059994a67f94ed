import type { LogEventData, LogEventType } from '../session/types.ts';

/**
 * What a machine asks to be written to the session log. Machines stay pure: they name the entry in a
 * `log` action and the runtime provides the writer (SessionLog.append), which assigns seq and time.
 */
export type LogEntry = {
  [Type in LogEventType]: { type: Type; data: LogEventData[Type]; turn?: number; step?: number };
}[LogEventType];

/**
 * The default `log` action of every machine. Pure traversal (graph paths, `transition`) records
 * nothing; the runtime replaces it with the session log's writer through `machine.provide()`.
 */
export function logNothing(_args: unknown, _entry: LogEntry): void {}
