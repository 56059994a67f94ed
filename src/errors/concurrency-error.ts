import { AgentchartError, hasMarker } from './agentchart-error.ts';

const marker = Symbol.for('agentchart.error.ConcurrencyError');

/**
 * A second writer got to a session first: the events this writer meant to append would land on seqs that
 * are already written (or not where the log ends). Nothing of the refused append is written, so the log
 * keeps no gap and no duplicate; the writer's view of the session is stale, and it must stop writing.
 */
export class ConcurrencyError extends AgentchartError<'concurrency'> {
  readonly [marker] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super('concurrency', message, options);
    this.name = 'ConcurrencyError';
  }

  static override isInstance(value: unknown): value is ConcurrencyError {
    return hasMarker(value, marker);
  }
}
