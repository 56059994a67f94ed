import { AgentchartError } from './agentchart-error.ts';

/** A tool was called with arguments its schema rejects. */
export class ToolInputError extends AgentchartError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('tool_input', message, options);
    this.name = 'ToolInputError';
  }
}
