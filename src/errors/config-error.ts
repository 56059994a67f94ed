import { AgentchartError, hasMarker } from './agentchart-error.ts';

const marker = Symbol.for('agentchart.error.ConfigError');

/** The runtime or an agent was configured wrongly. */
export class ConfigError extends AgentchartError<'config'> {
  readonly [marker] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super('config', message, options);
    this.name = 'ConfigError';
  }

  static override isInstance(value: unknown): value is ConfigError {
    return hasMarker(value, marker);
  }
}
