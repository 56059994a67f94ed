/** A value as it reads back from the log, or why it cannot be written there. */
export type JsonRoundTrip = { ok: true; value: unknown } | { ok: false; reason: string };

/**
 * `value` after a JSON round trip: what a session log written now would give back when loaded (`NaN`
 * and `Infinity` become `null`, `undefined` fields disappear, dates become strings). A value that JSON
 * cannot hold at all (a `BigInt`, a cycle, a bare function or `undefined`) is refused with the reason.
 */
export function jsonRoundTrip(value: unknown): JsonRoundTrip {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : 'JSON.stringify failed' };
  }
  if (text === undefined) return { ok: false, reason: `JSON cannot hold ${typeof value}` };
  return { ok: true, value: JSON.parse(text) };
}
