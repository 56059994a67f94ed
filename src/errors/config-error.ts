import { AgentchartError } from './agentchart-error.ts';

/** The runtime or an agent was configured wrongly. */
export class ConfigError extends AgentchartError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('config', message, options);
    this.name = 'ConfigError';
  }
}
