// The layering rule of src/ (scripts/check-imports.ts): imports go down the floors, never in a circle.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkImports, importGraph } from '../scripts/check-imports.ts';
import { repoRoot } from './support/child-run.ts';

const at = (path: string) => join(repoRoot, 'src', path);

describe('the import rules of src/', () => {
  it('hold for the code as it is', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(100);
    expect(checkImports(graph)).toEqual([]);
  });

  it('catch an import that goes up a floor, and a cycle', () => {
    const graph = new Map([
      [at('machines/turn.ts'), [at('runtime/host.ts')]],
      [at('runtime/host.ts'), []],
      [at('session/a.ts'), [at('session/b.ts')]],
      [at('session/b.ts'), [at('session/a.ts')]],
    ]);
    expect(checkImports(graph)).toEqual([
      {
        kind: 'upward',
        detail: 'src/machines/turn.ts -> src/runtime/host.ts (machines may not import runtime)',
      },
      { kind: 'cycle', detail: 'src/session/a.ts -> src/session/b.ts -> src/session/a.ts' },
    ]);
  });

  it('refuse a folder that has no floor', () => {
    const graph = new Map([[at('plugins/x.ts'), []]]);
    expect(checkImports(graph)).toEqual([
      { kind: 'unknown-folder', detail: 'src/plugins/x.ts: give src/plugins a floor' },
    ]);
  });
});
