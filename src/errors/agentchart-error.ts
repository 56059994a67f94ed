const marker = Symbol.for('agentchart.error');

/**
 * The base of every error agentchart throws at an API boundary. Each subclass has a literal `code`
 * and is recognised across package copies with `isInstance` (a `Symbol.for` marker, not `instanceof`).
 */
export class AgentchartError extends Error {
  readonly [marker] = true;
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AgentchartError';
    this.code = code;
  }

  static isInstance(value: unknown): value is AgentchartError {
    return typeof value === 'object' && value !== null && (value as { [marker]?: unknown })[marker] === true;
  }
}
