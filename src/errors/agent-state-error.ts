import { AgentchartError } from './agentchart-error.ts';

/** An agent was asked to do something its lifecycle state does not allow (for example after dispose). */
export class AgentStateError extends AgentchartError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('agent_state', message, options);
    this.name = 'AgentStateError';
  }
}
