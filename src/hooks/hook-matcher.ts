// Claude Code's `matcher` (hooks "Matcher patterns"): empty, omitted or `*` matches everything; a matcher of
// only letters, digits, `_`, `-`, spaces, `,` and `|` is a list of exact names split on `|` or `,`; anything
// else is a JavaScript regular expression tested unanchored, so `Edit.*` also matches `NotebookEdit` and
// `^Edit$` is the whole name. What it is tested on depends on the event: the tool's names at PreToolUse and
// PostToolUse, the source at SessionStart, the trigger at PreCompact.
import { matcherNamesOf } from '../tools/claude-code-names.ts';
import type { HookPoint } from './hook-types.ts';

/** Whether Claude Code reads `matcher` as exact names (only letters, digits, `_`, `-`, spaces, `,`, `|`). */
export function exactNames(matcher: string): boolean {
  return /^[A-Za-z0-9_\- ,|]*$/.test(matcher);
}

/** The names of an exact-name matcher: split on `|` or `,`, spaces trimmed. */
export function splitNames(matcher: string): string[] {
  return matcher
    .split(/[|,]/)
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/** A test of one value against `matcher`, or `undefined` when the matcher matches everything. */
export function valueMatcher(matcher: string | undefined): ((value: string) => boolean) | undefined {
  if (matcher === undefined || matcher.trim() === '' || matcher === '*') return undefined;
  if (exactNames(matcher)) {
    const names = splitNames(matcher);
    return (value) => names.includes(value);
  }
  const pattern = new RegExp(matcher);
  return (value) => pattern.test(value);
}

/**
 * A matcher on tool names, tried on the tool's own name and on each Claude Code name standing for it:
 * `Bash` matches `bash`, `Edit|Write|MultiEdit` matches `edit_file` and `write_file`, `read_file` still
 * matches `read_file`, and `mcp__memory` (exact) matches no tool (`mcp__memory__.*` does).
 */
export function toolMatcher(matcher: string | undefined): ((toolName: string) => boolean) | undefined {
  const test = valueMatcher(matcher);
  if (test === undefined) return undefined;
  return (toolName) => matcherNamesOf(toolName).some(test);
}

/** The points whose matcher selects what they are about; Claude Code ignores a matcher on the others. */
const matchedOn: Partial<Record<HookPoint, 'tool' | 'value'>> = {
  preTool: 'tool',
  postTool: 'tool',
  sessionStart: 'value',
  preCompact: 'value',
};

/** The matcher of a hook at `point`, or `undefined` when every consultation of the point runs it. */
export function pointMatcher(
  point: HookPoint,
  matcher: string | undefined,
): ((value: string) => boolean) | undefined {
  const kind = matchedOn[point];
  if (kind === undefined) return undefined;
  return kind === 'tool' ? toolMatcher(matcher) : valueMatcher(matcher);
}

/** Why `matcher` cannot be read (not a regular expression), or `undefined`. */
export function matcherProblem(matcher: string): string | undefined {
  try {
    valueMatcher(matcher);
    return undefined;
  } catch (error) {
    return `not a regular expression: ${(error as Error).message}`;
  }
}
