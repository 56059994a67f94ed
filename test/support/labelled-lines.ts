// Child scripts under test/fixtures/boundary/ report what they saw as one JSON line per labelled value;
// the test reads the lines back and compares the whole sequence.

/** Writes `{ label, value }` as one JSON line on stdout. */
export function printLabelled(label: string, value: unknown): void {
  process.stdout.write(`${JSON.stringify({ label, value })}\n`);
}

/** The labelled lines of a child's stdout as `[label, value]` pairs, in order; other lines are ignored. */
export function readLabelled(stdout: string): [string, unknown][] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => {
      const { label, value } = JSON.parse(line) as { label: string; value: unknown };
      return [label, value];
    });
}
