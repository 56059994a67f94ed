import { AgentchartError } from './agentchart-error.ts';

/** A session log cannot be read: unknown version, bad line, broken sequence. */
export class LogFormatError extends AgentchartError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('log_format', message, options);
    this.name = 'LogFormatError';
  }
}
