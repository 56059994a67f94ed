import { AgentchartError, hasMarker } from './agentchart-error.ts';

const marker = Symbol.for('agentchart.error.LogFormatError');

/**
 * A session log cannot be read (unknown version, bad line, broken sequence), or an event cannot be
 * written because the log could not read it back.
 */
export class LogFormatError extends AgentchartError<'log_format'> {
  readonly [marker] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super('log_format', message, options);
    this.name = 'LogFormatError';
  }

  static override isInstance(value: unknown): value is LogFormatError {
    return hasMarker(value, marker);
  }
}
