import { minimumSecretLength } from '../core/credentials.ts';
import { ProviderError } from '../errors/provider-error.ts';

export const redactedMark = '[redacted]';

/** `text` with every occurrence of each secret (of at least 8 characters) replaced by `[redacted]`. */
export function redactSecrets(text: string, secrets: Iterable<string | null | undefined>): string {
  const usable = [...secrets].filter(
    (secret): secret is string => typeof secret === 'string' && secret.length >= minimumSecretLength,
  );
  // Longest first, so a secret that contains another is replaced whole.
  usable.sort((a, b) => b.length - a.length);
  let result = text;
  for (const secret of usable) {
    if (result.includes(secret)) result = result.split(secret).join(redactedMark);
  }
  return result;
}

/**
 * `error` with the secrets taken out of its message. When something was taken out, the copy does not
 * keep the `cause` (the SDK's error, whose response body may hold the secret as well).
 */
export function redactProviderError(
  error: ProviderError,
  secrets: Iterable<string | null | undefined>,
): ProviderError {
  const message = redactSecrets(error.message, secrets);
  if (message === error.message) return error;
  return new ProviderError({
    kind: error.kind,
    message,
    retryable: error.retryable,
    ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
    ...(error.status !== undefined ? { status: error.status } : {}),
  });
}
