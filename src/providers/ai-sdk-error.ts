// Failures of AI SDK models in agentchart's kinds. The AI SDK reports HTTP failures as `APICallError`
// (`statusCode`, `responseHeaders`, the parsed body in `data`, the raw one in `responseBody`), its own
// checks as errors named `AI_<Something>Error`, and a vendor's error event as whatever the provider
// passed on (often the vendor's JSON). Read by duck typing: nothing of the AI SDK is loaded at run time.
import type { Clock } from '../core/clock.ts';
import { ProviderError, type ProviderErrorKind } from '../errors/provider-error.ts';
import { classifyError } from './classify-error.ts';

type AiSdkErrorLike = {
  name?: unknown;
  message?: unknown;
  statusCode?: unknown;
  responseHeaders?: unknown;
  responseBody?: unknown;
  data?: unknown;
  isRetryable?: unknown;
  cause?: unknown;
};

// The AI SDK's own errors that say what is wrong without a status.
const kindsByName: Readonly<Record<string, ProviderErrorKind>> = {
  AI_LoadAPIKeyError: 'auth',
  AI_LoadSettingError: 'auth',
  AI_InvalidPromptError: 'bad_request',
  AI_InvalidArgumentError: 'bad_request',
  AI_UnsupportedFunctionalityError: 'bad_request',
  AI_NoSuchModelError: 'bad_request',
  AI_TooManyEmbeddingValuesForCallError: 'bad_request',
};
// Chunks the provider could not read: the server sent something broken, which may not repeat.
const malformedNames = new Set([
  'AI_JSONParseError',
  'AI_TypeValidationError',
  'AI_InvalidResponseDataError',
  'AI_EmptyResponseBodyError',
]);
const endedEarly = /ended without a finish reason|stream ended/i;

/** Classifies anything an AI SDK model threw or put in an `error` stream part. */
export function classifyAiSdkError(
  error: unknown,
  options: { signal?: AbortSignal; clock?: Clock } = {},
): ProviderError {
  if (options.signal?.aborted) return classifyError(error, options);
  const like: AiSdkErrorLike = typeof error === 'object' && error !== null ? (error as AiSdkErrorLike) : {};
  const name = typeof like.name === 'string' ? like.name : '';
  const message = typeof like.message === 'string' ? like.message : '';
  if (typeof like.statusCode === 'number' || name === 'AI_APICallError') return fromApiCall(like, options);
  const named = kindsByName[name];
  if (named) return new ProviderError({ kind: named, message, cause: error });
  if (malformedNames.has(name)) {
    const kind = endedEarly.test(message) ? 'network' : 'server';
    const prefix = kind === 'network' ? '' : 'malformed response stream: ';
    return new ProviderError({ kind, message: `${prefix}${message}`, cause: error });
  }
  return classifyError(error, options);
}

/** An HTTP failure, read as the OpenAI and Anthropic SDKs' errors are: status, headers, vendor body. */
function fromApiCall(like: AiSdkErrorLike, options: { signal?: AbortSignal; clock?: Clock }): ProviderError {
  const body = like.data ?? parseBody(like.responseBody);
  // A 2xx status is the answer that began to stream and then broke: the cause says how (a reset socket).
  const code = typeof like.statusCode === 'number' ? like.statusCode : undefined;
  const status = code !== undefined && (code < 200 || code >= 300) ? code : undefined;
  const message = bodyMessage(body) ?? (typeof like.message === 'string' ? like.message : 'request failed');
  // The shape classifyError reads (`status`, `headers`, a vendor body in `error`), the original as cause.
  const shaped = Object.assign(new Error(message), {
    ...(status !== undefined ? { status } : {}),
    headers: like.responseHeaders,
    error: typeof body === 'object' && body !== null ? body : undefined,
    cause: like.cause,
  });
  const classified = classifyError(shaped, options);
  // Without a status the request never got an answer: the AI SDK marks that retryable (a network fault).
  if (status === undefined && like.isRetryable === true && !classified.retryable) {
    return new ProviderError({ kind: 'network', message: classified.message, cause: like });
  }
  return classified;
}

function parseBody(text: unknown): unknown {
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    // A body that is not JSON (an HTML error page, a plain sentence) is a message of its own.
    return { error: { message: text.trim().slice(0, 500) } };
  }
}

/** The vendor's own words: `{ error: { message } }`, `{ error: "…" }` (Ollama) or `{ message }`. */
function bodyMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { error, message } = body as { error?: unknown; message?: unknown };
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null) {
    const inner = (error as { message?: unknown }).message;
    if (typeof inner === 'string') return inner;
  }
  return typeof message === 'string' ? message : undefined;
}
