import { AgentchartError } from './agentchart-error.ts';

/** The model asked for a tool that is not offered. */
export class NoSuchToolError extends AgentchartError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('no_such_tool', message, options);
    this.name = 'NoSuchToolError';
  }
}
