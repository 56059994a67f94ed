#!/usr/bin/env node
// `npm run build` and the `prepare` script: compiles src/ into dist/ with tsc, unless dist/ was already
// built from exactly these sources. `npm ci` runs `prepare` and builds; then the first `npx agentchart
// demo` in the clone installs the clone into npx's cache as a `file:` dependency and runs `prepare` a
// second time, and `npm pack` a third: each of those found dist/ up to date and took ~0.1 s instead of
// a full tsc run (30–60 s on two cores). Plain JavaScript, so it runs before anything is compiled.
// `--force` rebuilds anyway; `--check` only says whether dist/ is up to date (exit 0) or not (exit 1).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Outside dist/ so it never ships; in node_modules/, so a fresh `npm ci` starts without it.
const stampFile = join(root, 'node_modules', '.cache', 'agentchart', 'build-inputs.txt');
// The files every consumer of dist/ needs: the library's entry and the command's.
const outputs = ['dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js'];

/** Every file below `folder`, sorted, so the fingerprint does not depend on directory order. */
function filesBelow(folder) {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** What the build's output depends on: the sources, both tsconfigs and the compiler's version. */
function inputsFingerprint() {
  const hash = createHash('sha256');
  const typescript = JSON.parse(readFileSync(join(root, 'node_modules/typescript/package.json'), 'utf8'));
  hash.update(`typescript ${typescript.version}\n`);
  const files = [
    join(root, 'tsconfig.json'),
    join(root, 'tsconfig.build.json'),
    ...filesBelow(join(root, 'src')),
  ];
  for (const file of files) {
    hash.update(`${relative(root, file)}\n`);
    hash.update(readFileSync(file));
  }
  return hash.digest('hex');
}

const force = process.argv.includes('--force');
const fingerprint = inputsFingerprint();
const built = existsSync(stampFile) ? readFileSync(stampFile, 'utf8') : '';
const upToDate = built === fingerprint && outputs.every((file) => existsSync(join(root, file)));
if (process.argv.includes('--check')) {
  // For checks that read dist/ (the doc test type-checks against its declarations): say, never build.
  process.stdout.write(
    upToDate ? 'dist/ is up to date with src/\n' : 'dist/ is not built from src/ as it is\n',
  );
  process.exit(upToDate ? 0 : 1);
}
if (!force && upToDate) {
  process.stdout.write('dist/ is up to date with src/ (node scripts/build.mjs --force rebuilds it)\n');
  process.exit(0);
}
rmSync(join(root, 'dist'), { recursive: true, force: true });
rmSync(stampFile, { force: true });
const tsc = spawnSync(
  process.execPath,
  [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')],
  { cwd: root, stdio: 'inherit' },
);
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
mkdirSync(dirname(stampFile), { recursive: true });
writeFileSync(stampFile, fingerprint);
