// "Did you mean": the known name nearest to a misspelt one, for messages about unknown keys and names.

/** The key of `known` nearest to a misspelt `key` (for "did you mean"), or `undefined` when none is close. */
export function nearestKey(key: string, known: Iterable<string>): string | undefined {
  let best: { key: string; distance: number; exact: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    // Between names as near without case (`bash`, `Bash` for `Bsh`), the one nearer with case wins.
    const exact = editDistance(key, candidate);
    if (best === undefined || distance < best.distance || (distance === best.distance && exact < best.exact))
      best = { key: candidate, distance, exact };
  }
  const close = Math.max(2, Math.floor(key.length / 3));
  return best !== undefined && best.distance <= close ? best.key : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(
        previous[j]! + 1,
        row[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = row;
  }
  return previous[b.length]!;
}
