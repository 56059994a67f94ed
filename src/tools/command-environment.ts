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

/** Which variables of the host's environment a command sees. */
export type CommandEnvironmentOptions = {
  /** More names or `*` patterns to withhold, on top of `defaultWithheldVariables`. */
  withhold?: readonly string[] | undefined;
  /**
   * Names or `*` patterns passed even though they match a withheld one: the host's opt-in, for a command
   * that needs a key (`['OPENAI_API_KEY']`). `['*']` passes the whole environment.
   */
  allow?: readonly string[] | undefined;
};

/** `pattern` (with `*` wildcards) as a whole-name, case-insensitive test. */
function namePattern(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`, 'i');
}

/** A test for variable names compiled once from the options. */
export function environmentFilter(options: CommandEnvironmentOptions = {}): (name: string) => boolean {
  const withheld = [...defaultWithheldVariables, ...(options.withhold ?? [])].map(namePattern);
  const allowed = (options.allow ?? []).map(namePattern);
  return (name) => allowed.some((test) => test.test(name)) || !withheld.some((test) => test.test(name));
}

/** The variables of `source` that pass `passes`, without the unset ones. */
export function commandEnvironment(
  source: NodeJS.ProcessEnv,
  passes: (name: string) => boolean,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(source))
    if (value !== undefined && passes(name)) out[name] = value;
  return out;
}
