const marker = Symbol.for('agentchart.error');

/**
 * Whether `value` carries the `Symbol.for` marker `symbol` set to exactly `true`. Markers survive
 * package duplication (two copies of agentchart in one process), where `instanceof` does not.
 */
export function hasMarker(value: unknown, symbol: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[symbol] === true;
}

/**
 * The base of every error agentchart throws at an API boundary. `code` is a literal per subclass. Each
 * class carries its own `Symbol.for('agentchart.error.<Name>')` marker and its own `isInstance`, so
 * `ProviderError.isInstance(new ConfigError('x'))` is false while `AgentchartError.isInstance` is true
 * for all of them, also for errors made by another copy of the package.
 *
 * @example
 * if (ConfigError.isInstance(error)) console.error(`bad option: ${error.message}`);
 */
export class AgentchartError<Code extends string = string> extends Error {
  readonly [marker] = true;
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AgentchartError';
    this.code = code;
  }

  static isInstance(value: unknown): value is AgentchartError {
    return hasMarker(value, marker);
  }
}
