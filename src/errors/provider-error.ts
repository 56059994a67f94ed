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
]);

/** Whether the step machine may try a request of this kind again. */
export function isRetryableKind(kind: ProviderErrorKind): boolean {
  return retryableKinds.has(kind);
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
