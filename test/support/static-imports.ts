// What a module loads when it is imported: its static run-time imports, followed through the files of
// src/ (types and `import()` left out), down to the packages they name. TypeScript's own parser reads them.
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';

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
export function staticClosure(entry: string): { packages: Set<string>; files: number } {
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
