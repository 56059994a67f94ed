import { AgentchartError, hasMarker } from './agentchart-error.ts';

const marker = Symbol.for('agentchart.error.ProviderError');

export const providerErrorKinds = [
  'rate_limit',
  'overloaded',
  'server',
  'network',
  'auth',
  'bad_request',
  'context_overflow',
  // The account may not spend (an exhausted quota, billing not set up): waiting does not help, paying does.
  'quota',
  // The server refused what the model generated (Groq's `tool_use_failed`: a tool call that does not
  // parse or fit its schema). The request was fine and a fresh generation usually succeeds.
  'invalid_output',
  'aborted',
  // The provider's stream broke the event contract (see src/actors/model-response.ts).
  'bad_response',
] as const;
export type ProviderErrorKind = (typeof providerErrorKinds)[number];

// Not `bad_response`: a malformed response comes from a provider or server that is broken in a way that
// repeats, so trying again would only spend the attempts (and the tokens) on the same failure.
const retryableKinds: ReadonlySet<ProviderErrorKind> = new Set([
  'rate_limit',
  'overloaded',
  'server',
  'network',
  'invalid_output',
]);

/** Whether the step machine may try a request of this kind again. */
export function isRetryableKind(kind: ProviderErrorKind): boolean {
  return retryableKinds.has(kind);
}

/**
 * The most attempts a failure of this kind deserves, below the policy's own limit, or `undefined` for
 * none. A malformed generation is worth one more try: a second one in a row says the request itself
 * leads the model astray, and repeating it would only spend tokens.
 */
export function attemptLimitOf(kind: ProviderErrorKind): number | undefined {
  return kind === 'invalid_output' ? 2 : undefined;
}

/** A model request that failed, classified so the retry policy can decide without vendor knowledge. */
export class ProviderError extends AgentchartError<`provider_${ProviderErrorKind}`> {
  readonly [marker] = true;
  readonly kind: ProviderErrorKind;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly status: number | undefined;

  constructor(options: {
    kind: ProviderErrorKind;
    message: string;
    retryAfterMs?: number;
    status?: number;
    retryable?: boolean;
    cause?: unknown;
  }) {
    super(`provider_${options.kind}`, options.message, { cause: options.cause });
    this.name = 'ProviderError';
    this.kind = options.kind;
    this.retryable = options.retryable ?? isRetryableKind(options.kind);
    this.retryAfterMs = options.retryAfterMs;
    this.status = options.status;
  }

  static override isInstance(value: unknown): value is ProviderError {
    return hasMarker(value, marker);
  }

  /** The plain-data form that travels in events and the log. */
  toJSON(): ProviderErrorData {
    return {
      kind: this.kind,
      message: this.message,
      retryable: this.retryable,
      ...(this.retryAfterMs !== undefined ? { retryAfterMs: this.retryAfterMs } : {}),
      ...(this.status !== undefined ? { status: this.status } : {}),
    };
  }
}

export type ProviderErrorData = {
  kind: ProviderErrorKind;
  message: string;
  retryable: boolean;
  retryAfterMs?: number;
  status?: number;
};
