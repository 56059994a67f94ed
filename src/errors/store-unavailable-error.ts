import { AgentchartError, hasMarker } from './agentchart-error.ts';

const marker = Symbol.for('agentchart.error.StoreUnavailableError');

/**
 * The session store's server could not be reached, and waiting for it (a bounded number of retries) did
 * not help. Nothing was lost: a write that was refused was not written.
 */
export class StoreUnavailableError extends AgentchartError<'store_unavailable'> {
  readonly [marker] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super('store_unavailable', message, options);
    this.name = 'StoreUnavailableError';
  }

  static override isInstance(value: unknown): value is StoreUnavailableError {
    return hasMarker(value, marker);
  }
}
