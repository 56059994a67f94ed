// Which environment variables hold credentials, by their conventional names: one list for everything
// that keeps secrets away from the model — the variables `bash` (and ripgrep) do not pass on, and the values
// taken out of provider error messages. Ground floor: no imports.

/**
 * Environment variables kept from the commands `bash` runs (and from ripgrep), by name, unless the host
 * allows them: the conventional names of credentials. A `*` stands for any run of characters; matching
 * ignores case. Values are never inspected: a password inside `DATABASE_URL` is not recognised.
 */
export const defaultWithheldVariables: readonly string[] = [
  '*API_KEY', // ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, …
  '*APIKEY',
  '*_KEY', // AWS_SECRET_ACCESS_KEY, STRIPE_SECRET_KEY, *_PRIVATE_KEY, …
  '*TOKEN', // GITHUB_TOKEN, GH_TOKEN, NPM_TOKEN, HF_TOKEN, AWS_SESSION_TOKEN, npm's …:_authToken
  '*SECRET*', // CLIENT_SECRET, JWT_SECRET, SECRET_KEY_BASE
  '*PASSWORD*', // PGPASSWORD, MYSQL_ROOT_PASSWORD
  '*PASSWD*',
  '*CREDENTIAL*', // GOOGLE_APPLICATION_CREDENTIALS
  '*_AUTH', // npm_config__auth
];

/** `pattern` (with `*` wildcards) as a whole-name, case-insensitive test. */
export function namePattern(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`, 'i');
}

const credentialNames = defaultWithheldVariables.map(namePattern);

/** Whether `name` is named like a credential (matches `defaultWithheldVariables`). */
export function isCredentialName(name: string): boolean {
  return credentialNames.some((test) => test.test(name));
}

// Shorter values (`'local'`, `'ollama'` for servers that need no key) are not secrets, and replacing them
// would garble ordinary words in a message.
export const minimumSecretLength = 8;

/** The values (of at least 8 characters) of the variables in `env` that are named like credentials. */
export function credentialValues(env: NodeJS.ProcessEnv = process.env): string[] {
  const found: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= minimumSecretLength && isCredentialName(name)) found.push(value);
  }
  return found;
}
