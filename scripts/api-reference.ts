// `npm run docs`: the API reference in docs/api/, made by TypeDoc (typedoc.json) from the declarations the
// package ships (dist/*.d.ts, built first when stale), so it documents exactly the types a user gets.
// Beside the pages it writes docs/api/.fingerprint: a hash of what TypeDoc read (the reachable .d.ts
// files, its configuration and versions) and of what it wrote. The doc test compares both hashes, which
// takes milliseconds; only when they differ does it run TypeDoc again (seconds) to tell a stale
// reference from an outdated fingerprint.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const exec = promisify(execFile);
export const root = resolve(import.meta.dirname, '..');
export const apiFolder = join(root, 'docs/api');
export const fingerprintFile = join(apiFolder, '.fingerprint');

type Fingerprint = { inputs: string; output: string };

function versionOf(name: string): string {
  return JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
}

/** The entry declarations TypeDoc documents (typedoc.json's `entryPoints`). */
function entryPoints(): string[] {
  const config = JSON.parse(readFileSync(join(root, 'typedoc.json'), 'utf8')) as { entryPoints: string[] };
  return config.entryPoints.map((entry) => join(root, entry));
}

/** Every .d.ts file the entry points reach through relative imports, sorted. */
function reachableDeclarations(): string[] {
  const seen = new Set<string>();
  const pending = entryPoints();
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:from|import\()\s*['"](\.{1,2}\/[^'"]+)['"]/g))
      pending.push(join(dirname(file), match[1]!.replace(/\.(?:js|ts)$/, '.d.ts')));
  }
  return [...seen].sort();
}

/** A hash of everything TypeDoc reads: the reachable declarations, its configuration and the versions. */
export function inputsFingerprint(): string {
  const hash = createHash('sha256');
  for (const name of ['typescript', 'typedoc', 'typedoc-plugin-markdown'])
    hash.update(`${name} ${versionOf(name)}\n`);
  for (const file of [
    'typedoc.json',
    'tsconfig.docs.json',
    'tsconfig.json',
    'scripts/typedoc-module-names.mjs',
  ])
    hash.update(`${file}\n`).update(readFileSync(join(root, file)));
  for (const file of reachableDeclarations())
    hash.update(`${relative(root, file)}\n`).update(readFileSync(file));
  return hash.digest('hex');
}

/** The pages under `folder` (the fingerprint itself left out), as relative path → content. */
export function pagesIn(folder: string): Map<string, string> {
  const pages = new Map<string, string>();
  if (!existsSync(folder)) return pages;
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name === '.fingerprint') continue;
    const path = join(entry.parentPath, entry.name);
    pages.set(relative(folder, path), readFileSync(path, 'utf8'));
  }
  return new Map([...pages].sort(([a], [b]) => a.localeCompare(b)));
}

export function outputFingerprint(folder: string): string {
  const hash = createHash('sha256');
  for (const [path, text] of pagesIn(folder)) hash.update(`${path}\n`).update(text);
  return hash.digest('hex');
}

export function readFingerprint(): Fingerprint | undefined {
  return existsSync(fingerprintFile)
    ? (JSON.parse(readFileSync(fingerprintFile, 'utf8')) as Fingerprint)
    : undefined;
}

/** Runs TypeDoc with typedoc.json, writing the reference into `out`. Rejects with TypeDoc's output. */
export async function generate(out: string): Promise<void> {
  const typedoc = join(root, 'node_modules/typedoc/bin/typedoc');
  await exec(
    process.execPath,
    [typedoc, '--options', join(root, 'typedoc.json'), '--out', out, '--logLevel', 'Warn'],
    {
      cwd: root,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
}

async function main(): Promise<void> {
  await exec(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root });
  await generate(apiFolder);
  const fingerprint: Fingerprint = { inputs: inputsFingerprint(), output: outputFingerprint(apiFolder) };
  writeFileSync(fingerprintFile, `${JSON.stringify(fingerprint, null, 2)}\n`);
  process.stdout.write(
    `API reference written to ${relative(root, apiFolder)}/ (${pagesIn(apiFolder).size} pages)\n`,
  );
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  await main();
