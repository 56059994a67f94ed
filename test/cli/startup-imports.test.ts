import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Every `agentchart` start, `--help` included, loads what src/cli/main.ts imports statically; commands
// load their own modules with `import()` when they run. One static import of a heavy module (a tool's
// schema pulled in zod and the tool layer) once doubled `agentchart --help` (0.26 s against node's 0.10 s).

const cliMain = join(dirname(fileURLToPath(import.meta.url)), '../../src/cli/main.ts');

/** The module specifiers `file` imports at run time: static imports and re-exports, not types, not `import()`. */
function runtimeImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const typesOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      if (!typesOnly) found.push((statement.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
      found.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return found;
}

/** The packages (and node: modules) reachable from `entry` through static run-time imports, and the file count. */
function staticClosure(entry: string): { packages: Set<string>; files: number } {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of runtimeImports(file)) {
      if (specifier.startsWith('.')) {
        const target = normalize(join(dirname(file), specifier));
        if (target.endsWith('.ts')) visit(target);
      } else packages.add(specifier);
    }
  };
  visit(entry);
  return { packages, files: seen.size };
}

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
