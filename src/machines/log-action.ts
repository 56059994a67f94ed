import type { LogEntry } from '../session/types.ts';

/**
 * The default `log` action of every machine. Pure traversal (graph paths, `transition`) records
 * nothing; the runtime replaces it with the session log's writer through `machine.provide()`.
 */
export function logNothing(_args: unknown, _entry: LogEntry): void {}
