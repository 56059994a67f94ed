import { defaultWithheldVariables, namePattern } from '../core/credentials.ts';

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
