// The text the model reads when it calls a tool that does not exist. With a handful of tools it names them
// all; with thousands (10 000 MCP tools listed 178 938 characters) it names the ones closest to what the
// model asked for, so the likely typo is corrected first, and says how many it left out.

/** The most tool names an unknown-tool result lists. */
export const maxListedToolNames = 30;

/** `Unknown tool "name". Available tools: …` naming at most `maxListedToolNames` of `known`. */
export function unknownToolMessage(name: string, known: Iterable<string>): string {
  const names = [...known].sort();
  if (names.length === 0) return `Unknown tool "${name}". Available tools: (none).`;
  if (names.length <= maxListedToolNames)
    return `Unknown tool "${name}". Available tools: ${names.join(', ')}.`;
  const closest = closestNames(name, names, maxListedToolNames);
  return (
    `Unknown tool "${name}". ${names.length} tools are available; the ${closest.length} closest to that ` +
    `name: ${closest.join(', ')} (and ${names.length - closest.length} more).`
  );
}

// Names are compared by their first characters only, so a model that sends a huge name costs no more.
const comparedChars = 128;

/** The `count` names nearest to `name` by edit distance, nearest first, ties in `sorted` order. */
function closestNames(name: string, sorted: readonly string[], count: number): string[] {
  const asked = name.slice(0, comparedChars);
  const row = new Uint32Array(asked.length + 1);
  const ranked = sorted.map((candidate, index) => ({
    candidate,
    index,
    distance: distance(asked, candidate.slice(0, comparedChars), row),
  }));
  ranked.sort((a, b) => a.distance - b.distance || a.index - b.index);
  return ranked.slice(0, count).map((entry) => entry.candidate);
}

/** Levenshtein distance between `a` and `b` in one reused row (`row` has `a.length + 1` cells). */
function distance(a: string, b: string, row: Uint32Array): number {
  for (let i = 0; i <= a.length; i++) row[i] = i;
  for (let j = 1; j <= b.length; j++) {
    let diagonal = row[0]!;
    row[0] = j;
    for (let i = 1; i <= a.length; i++) {
      const above = row[i]!;
      const substitution = diagonal + (a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1);
      row[i] = Math.min(above + 1, row[i - 1]! + 1, substitution);
      diagonal = above;
    }
  }
  return row[a.length]!;
}
