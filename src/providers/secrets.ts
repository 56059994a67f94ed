import { ProviderError } from '../errors/provider-error.ts';

/**
 * Environment variables that hold credentials of model providers and code hosts. Their values are taken
 * out of provider error messages before those reach the log or a live event.
 */
export const secretVariableNames: readonly string[] = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'OPENAI_API_KEY',
  'OPENAI_ADMIN_KEY',
  'AZURE_OPENAI_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GOOGLE_GENERATIVE_AI_API_KEY',
  'MISTRAL_API_KEY',
  'GROQ_API_KEY',
  'DEEPSEEK_API_KEY',
  'OPENROUTER_API_KEY',
  'XAI_API_KEY',
  'TOGETHER_API_KEY',
  'FIREWORKS_API_KEY',
  'COHERE_API_KEY',
  'HF_TOKEN',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'GITHUB_TOKEN',
  'GH_TOKEN',
];

// Any other variable named like a credential (`FOO_API_KEY`, `BAR_AUTH_TOKEN`) is treated as one too.
const secretNamePattern = /(?:^|_)(?:API_KEY|AUTH_TOKEN|ACCESS_TOKEN|SECRET_ACCESS_KEY|SECRET_KEY)$/;

// Shorter values (`'local'`, `'ollama'` for servers that need no key) are not secrets, and replacing them
// would garble ordinary words in the message.
const minimumSecretLength = 8;

export const redactedMark = '[redacted]';

/** The values of the credential variables set in `env`. */
export function secretsInEnvironment(env: NodeJS.ProcessEnv = process.env): string[] {
  const found: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value && (secretVariableNames.includes(name) || secretNamePattern.test(name))) found.push(value);
  }
  return found;
}

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
