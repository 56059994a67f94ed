import { type Clock, systemClock } from '../core/clock.ts';
import { messageOf } from '../errors/describe-value.ts';
import { ProviderError, type ProviderErrorKind } from '../errors/provider-error.ts';

/** What `classifyError` may consult besides the error itself. */
export type ClassifyOptions = {
  /** The request's signal: once it fired, every failure is an abort. */
  signal?: AbortSignal;
  /** Turns a `retry-after` HTTP date into a delay. */
  clock?: Clock;
};

type ErrorLike = {
  name?: unknown;
  message?: unknown;
  status?: unknown;
  headers?: unknown;
  code?: unknown;
  type?: unknown;
  error?: unknown;
  cause?: unknown;
};

const networkCodes = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
]);
const networkMessage =
  /socket hang up|ECONNRESET|terminated|other side closed|fetch failed|network|timed? ?out|premature close/i;
const missingCredentials = /OPENAI_API_KEY|ANTHROPIC_API_KEY|apiKey or authToken|authentication method/i;
// How vendors and OpenAI-compatible servers word a request too long for the context window: Anthropic
// ("prompt is too long", "exceed context limit"), OpenAI and vLLM ("maximum context length", "longer than
// the maximum model length"), llama.cpp ("exceeds the available context size"), Ollama ("exceeds the
// context length"), LM Studio ("context length of only", "n_keep (…) >= n_ctx").
const contextOverflowMessage =
  /prompt is too long|context length|context window|context limit|maximum context|context_length_exceeded|too many tokens|input is too long|exceeds (?:the )?(?:available )?context|longer than the maximum model length|n_keep \(\d+\) >= n_ctx/i;
// Error types and codes that mean the same: OpenAI's code and llama.cpp's type.
const contextOverflowTypes = new Set(['context_length_exceeded', 'exceed_context_size_error']);
// An account that may not spend: OpenAI's codes, Anthropic's billing error and its "credit balance" refusal.
const quotaTypes = new Set([
  'insufficient_quota',
  'billing_hard_limit_reached',
  'billing_not_active',
  'billing_error',
]);
const quotaMessage = /credit balance is too low/i;
// Groq's refusal of a tool call the model generated (malformed, or not fitting its schema).
const invalidOutputTypes = new Set(['tool_use_failed']);

/**
 * Turns any failure of a model request (SDK error, socket error, mid-stream error event, abort) into a
 * `ProviderError` the retry policy can act on without vendor knowledge. SDK-agnostic: it reads only
 * duck-typed fields (`status`, `headers`, `type`, `code`, `error`), so it imports no SDK.
 */
export function classifyError(error: unknown, options: ClassifyOptions = {}): ProviderError {
  if (ProviderError.isInstance(error)) return error;
  const like: ErrorLike = typeof error === 'object' && error !== null ? (error as ErrorLike) : {};
  const message = describe(error);
  if (options.signal?.aborted || isAbort(like)) {
    return new ProviderError({ kind: 'aborted', message: 'request aborted', cause: error });
  }
  const status = typeof like.status === 'number' ? like.status : undefined;
  if (status !== undefined) return fromStatus(status, like, message, options.clock ?? systemClock, error);
  const typed = kindFromType(errorTypes(like), message);
  if (typed) return new ProviderError({ kind: typed, message, cause: error });
  if (missingCredentials.test(message)) return new ProviderError({ kind: 'auth', message, cause: error });
  if (isNetwork(like)) return new ProviderError({ kind: 'network', message, cause: error });
  if (like.name === 'SyntaxError') {
    return new ProviderError({
      kind: 'server',
      message: `malformed response stream: ${message}`,
      cause: error,
    });
  }
  // Most likely a bug in an adapter or SDK: retrying would only repeat it.
  return new ProviderError({
    kind: 'server',
    retryable: false,
    message: `unexpected: ${message}`,
    cause: error,
  });
}

function fromStatus(status: number, like: ErrorLike, message: string, clock: Clock, cause: unknown) {
  const retryAfterMs = retryAfter(like.headers, clock);
  const base = { message, status, cause, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  const types = errorTypes(like);
  // Before the 429 rule: an exhausted quota is reported as 429 but does not heal by waiting.
  if (types.some((type) => quotaTypes.has(type)) || quotaMessage.test(message)) {
    return new ProviderError({ kind: 'quota', ...base });
  }
  if (status === 429) return new ProviderError({ kind: 'rate_limit', ...base });
  if (status === 401 || status === 403) return new ProviderError({ kind: 'auth', ...base });
  // Before the 5xx rule: some servers (llama.cpp builds, Ollama) refuse a too-long prompt with a 500,
  // and retrying the same request could only fail the same way.
  if (isContextOverflow(types, message)) return new ProviderError({ kind: 'context_overflow', ...base });
  if (types.some((type) => invalidOutputTypes.has(type)))
    return new ProviderError({ kind: 'invalid_output', ...base });
  if (status === 529 || types.includes('overloaded_error'))
    return new ProviderError({ kind: 'overloaded', ...base });
  if (status >= 500) return new ProviderError({ kind: 'server', ...base });
  if (status === 408) return new ProviderError({ kind: 'network', ...base });
  if (status === 409) return new ProviderError({ kind: 'server', ...base });
  return new ProviderError({ kind: 'bad_request', ...base });
}

/**
 * Classifies an error that a vendor reported inside a stream (an `error` event, a failed response) by its
 * type or code. An unknown type mid-stream is taken as a server fault, which may heal on retry.
 */
export function classifyVendorError(type: string | undefined, message: string | undefined): ProviderError {
  const text = message ?? type ?? 'the model server reported an error';
  return new ProviderError({ kind: kindFromType(type ? [type] : [], text) ?? 'server', message: text });
}

/** Whether the request was refused for not fitting the model's context window. */
function isContextOverflow(types: readonly string[], message: string): boolean {
  return types.some((type) => contextOverflowTypes.has(type)) || contextOverflowMessage.test(message);
}

/** Maps a vendor error type or code (Anthropic `error.type`, OpenAI `type`/`code`) onto a kind. */
function kindFromType(types: string[], message: string): ProviderErrorKind | undefined {
  // A code that says overflow wins over a generic type beside it (`invalid_request_error`).
  if (types.some((type) => contextOverflowTypes.has(type))) return 'context_overflow';
  // Before the generic types beside them (Groq sends `invalid_request_error` with `tool_use_failed`).
  if (types.some((type) => quotaTypes.has(type)) || quotaMessage.test(message)) return 'quota';
  if (types.some((type) => invalidOutputTypes.has(type))) return 'invalid_output';
  for (const type of types) {
    switch (type) {
      case 'overloaded_error':
        return 'overloaded';
      case 'rate_limit_error':
      case 'rate_limit_exceeded':
        return 'rate_limit';
      case 'api_error':
      case 'server_error':
        return 'server';
      case 'timeout_error':
        return 'network';
      case 'authentication_error':
      case 'permission_error':
      case 'invalid_api_key':
        return 'auth';
      case 'invalid_request_error':
      case 'not_found_error':
      case 'request_too_large':
        return contextOverflowMessage.test(message) ? 'context_overflow' : 'bad_request';
      default:
        // OpenAI codes such as `invalid_prompt` or `image_too_large`: the request itself is at fault.
        if (/invalid|image|policy/.test(type)) return 'bad_request';
    }
  }
  return undefined;
}

/** Every error type or code string the error carries, top-level first. */
function errorTypes(like: ErrorLike): string[] {
  const found: string[] = [];
  const visit = (value: unknown, depth: number) => {
    if (typeof value !== 'object' || value === null || depth > 3) return;
    const record = value as Record<string, unknown>;
    for (const key of ['type', 'code']) {
      const field = record[key];
      if (typeof field === 'string' && field !== 'error') found.push(field);
    }
    visit(record.error, depth + 1);
  };
  visit(like, 0);
  return found;
}

function isAbort(like: ErrorLike): boolean {
  return like.name === 'AbortError' || like.name === 'APIUserAbortError';
}

function isNetwork(like: ErrorLike): boolean {
  let current: unknown = like;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const item = current as ErrorLike;
    if (item.name === 'APIConnectionError' || item.name === 'APIConnectionTimeoutError') return true;
    if (typeof item.code === 'string' && (networkCodes.has(item.code) || item.code.startsWith('UND_ERR'))) {
      return true;
    }
    if (typeof item.message === 'string' && networkMessage.test(item.message)) return true;
    current = item.cause;
  }
  return false;
}

/** `retry-after-ms` first, then `retry-after` as seconds or as an HTTP date (measured on `clock`). */
export function retryAfter(headers: unknown, clock: Clock): number | undefined {
  const milliseconds = Number.parseFloat(header(headers, 'retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.round(milliseconds);
  const value = header(headers, 'retry-after');
  if (value === undefined) return undefined;
  const seconds = Number(value.trim());
  if (value.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - clock.now());
}

function header(headers: unknown, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const like = error as ErrorLike;
    const vendor = vendorMessage(like.error);
    const base = vendor
      ? `${typeof like.status === 'number' ? `${like.status} ` : ''}${vendor}`
      : error.message;
    // Socket failures say only "terminated"; the cause says what happened.
    const cause = error.cause instanceof Error && error.cause.message ? ` (${error.cause.message})` : '';
    return (base || error.name) + cause;
  }
  return messageOf(error);
}

/** The readable part of a vendor error body: Anthropic nests it as `{ error: { type, message } }`. */
function vendorMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const inner = (body as { error?: unknown }).error;
  if (typeof inner !== 'object' || inner === null) return undefined;
  const { type, message } = inner as { type?: unknown; message?: unknown };
  if (typeof message !== 'string') return undefined;
  return typeof type === 'string' ? `${type}: ${message}` : message;
}
