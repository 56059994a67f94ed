import { AgentchartError, hasMarker } from './agentchart-error.ts';

const marker = Symbol.for('agentchart.error.AgentStateError');

/** An agent was asked to do something its lifecycle state does not allow (for example after dispose). */
export class AgentStateError extends AgentchartError<'agent_state'> {
  readonly [marker] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super('agent_state', message, options);
    this.name = 'AgentStateError';
  }

  static override isInstance(value: unknown): value is AgentStateError {
    return hasMarker(value, marker);
  }
}
