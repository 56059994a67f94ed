import { RE2JS, RE2JSException } from 're2js';

/**
 * A compiled grep pattern. grep reads RE2 syntax on both engines (ripgrep's default engine is of the same
 * family): matching takes time linear in the text, so no pattern can freeze the process, and look-around
 * and backreferences, which need backtracking, are refused.
 */
export type GrepPattern = { test(line: string): boolean };

/** Compiles `pattern` with RE2JS, or says why it cannot be used, in words for the model. */
export function compilePattern(pattern: string): GrepPattern | string {
  try {
    return RE2JS.compile(pattern);
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    return `Invalid regular expression ${JSON.stringify(pattern)}: ${error.message}.${explain(pattern)}`;
  }
}

// The engine's own message names the token; this says why the syntax is missing and what to do instead.
function explain(pattern: string): string {
  if (/\(\?<?[=!]/.test(pattern)) {
    return (
      ' grep has no look-around ((?=, (?!, (?<=, (?<!): its engine matches in linear time, which ' +
      'look-around would break. Match the surrounding text itself, or search more broadly and read the hits.'
    );
  }
  if (/\\[1-9]|\\k<|\(\?P=/.test(pattern)) {
    return (
      ' grep has no backreferences (\\1, \\k<name>): its engine matches in linear time, which ' +
      'backreferences would break. Search for a literal or a broader pattern and read the hits.'
    );
  }
  return ' grep reads RE2 syntax, as ripgrep does: (?i) for case-insensitive, \\b, \\d, \\s, [[:alpha:]], \\p{L}.';
}
