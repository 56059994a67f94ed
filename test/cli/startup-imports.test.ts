import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { staticClosure } from '../support/static-imports.ts';

// Every `agentchart` start, `--help` included, loads what src/cli/main.ts imports statically; commands
// load their own modules with `import()` when they run. One static import of a heavy module (a tool's
// schema pulled in zod and the tool layer) once doubled `agentchart --help` (0.26 s against node's 0.10 s).

const cliMain = join(dirname(fileURLToPath(import.meta.url)), '../../src/cli/main.ts');

describe('what every agentchart start loads', () => {
  it('src/cli/main.ts reaches no model SDK, no XState and no zod through static imports', () => {
    const { packages, files } = staticClosure(cliMain);
    expect(files).toBeGreaterThan(3);
    const heavy = [...packages].filter((name) => !name.startsWith('node:') && name !== 'commander');
    expect(heavy).toEqual([]);
  });

  it('the walk sees through to a heavy import (the check can fail)', () => {
    const batch = join(dirname(cliMain), '../machines/tool-batch.ts');
    const { packages } = staticClosure(batch);
    expect(packages.has('xstate')).toBe(true);
  });
});
