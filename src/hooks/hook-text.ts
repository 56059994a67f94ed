// The bound on what a command hook can put in front of the model, named once.

/**
 * The most characters of its own a command hook puts in front of the model per field: a denial or block
 * reason (exit code 2's stderr, `reason`, `permissionDecisionReason`, `stopReason`, which a `stop` hook
 * injects as a message), `additionalContext`, a replaced tool result, and the stderr of a failed hook.
 * More is cut, with a note saying how much. A rewritten prompt or system prompt is kept whole: it
 * replaces text that was the user's or the host's, and cutting it would lose theirs.
 */
export const hookTextMaxChars = 10_000;

/**
 * `text` cut to `hookTextMaxChars`, with a note saying how much there was: `whole` when the text is itself
 * what was kept of something longer (`3145728 bytes` of stderr), else its length.
 */
export function capHookText(text: string, whole?: string): string {
  if (text.length <= hookTextMaxChars && whole === undefined) return text;
  // Never end on half a surrogate pair.
  const high = /[\uD800-\uDBFF]/.test(text[hookTextMaxChars - 1] ?? '');
  const end = Math.min(text.length, high ? hookTextMaxChars - 1 : hookTextMaxChars);
  return `${text.slice(0, end)}\n[cut to the first ${end} characters of ${whole ?? `${text.length} characters`}]`;
}
