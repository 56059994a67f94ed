// The house limits on file length (docs: STYLE "Size and comments"): a source file in src/ at most 300
// lines, any code file of the repository at most 500. A file that outgrows them is split by
// responsibility, not trimmed of its comments.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { globSync } from 'tinyglobby';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './support/child-run.ts';

function linesOf(file: string): number {
  const text = readFileSync(file, 'utf8');
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** `path: N lines` for every file matched by `patterns` that is longer than `limit`. */
function longerThan(limit: number, patterns: string[]): string[] {
  const files = globSync(patterns, {
    cwd: repoRoot,
    absolute: true,
    ignore: ['**/node_modules/**', 'dist/**', 'test/fixtures/**', 'docs/claude-code/corpus/**'],
  });
  expect(files.length).toBeGreaterThan(100);
  return files
    .map((file) => ({ file: relative(repoRoot, file), lines: linesOf(file) }))
    .filter(({ lines }) => lines > limit)
    .map(({ file, lines }) => `${file}: ${lines} lines`)
    .sort();
}

describe('file sizes', () => {
  it('every source file in src/ is at most 300 lines', () => {
    expect(longerThan(300, ['src/**/*.ts'])).toEqual([]);
  });

  it('every code file of the repository is at most 500 lines', () => {
    expect(longerThan(500, ['**/*.ts', '**/*.mjs', '**/*.js'])).toEqual([]);
  });
});
