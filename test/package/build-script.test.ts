// scripts/build.mjs, which `npm run build` and `prepare` run: tsc only when dist/ was not built from the
// sources as they are. `npx agentchart demo` in a fresh clone runs `prepare` once more (npx installs the
// clone as a `file:` dependency), and `npm pack` again; a full tsc run each time made the README's first
// command take ~38 s. Here the project is a small copy whose `typescript` is a stand-in that writes the
// outputs and counts its runs, so each decision of the script is seen without a real compile.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
let project: string;

const standInTsc = `
const fs = require('node:fs');
const path = require('node:path');
const root = process.cwd();
fs.appendFileSync(path.join(root, 'tsc-runs.txt'), 'run\\n');
for (const file of ['dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js']) {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), fs.readFileSync(path.join(root, 'src/index.ts')));
}
`;

async function build(...args: string[]): Promise<string> {
  const { stdout } = await exec(process.execPath, ['scripts/build.mjs', ...args], { cwd: project });
  return stdout;
}

async function tscRuns(): Promise<number> {
  const runs = await readFile(join(project, 'tsc-runs.txt'), 'utf8').catch(() => '');
  return runs.split('\n').filter(Boolean).length;
}

beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'agentchart-build-'));
  await mkdir(join(project, 'scripts'));
  await cp(join(root, 'scripts/build.mjs'), join(project, 'scripts/build.mjs'));
  for (const name of ['tsconfig.json', 'tsconfig.build.json']) await writeFile(join(project, name), '{}');
  await mkdir(join(project, 'src/cli'), { recursive: true });
  await writeFile(join(project, 'src/index.ts'), 'export const one = 1;\n');
  const typescript = join(project, 'node_modules/typescript');
  await mkdir(join(typescript, 'bin'), { recursive: true });
  await writeFile(join(typescript, 'package.json'), JSON.stringify({ name: 'typescript', version: '5.9.3' }));
  await writeFile(join(typescript, 'bin/tsc'), standInTsc);
});

afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

describe('scripts/build.mjs', () => {
  it('compiles once, then finds dist/ up to date until a source, a config or the compiler changes', async () => {
    await build();
    expect(await tscRuns()).toBe(1);
    expect(await build()).toBe(
      'dist/ is up to date with src/ (node scripts/build.mjs --force rebuilds it)\n',
    );
    expect(await tscRuns()).toBe(1);
    await writeFile(join(project, 'src/index.ts'), 'export const one = 2;\n');
    await build();
    expect(await tscRuns()).toBe(2);
    await writeFile(join(project, 'src/cli/main.ts'), 'export {};\n');
    await build();
    expect(await tscRuns()).toBe(3);
    await writeFile(join(project, 'tsconfig.build.json'), '{ "compilerOptions": {} }');
    await build();
    expect(await tscRuns()).toBe(4);
    const manifest = join(project, 'node_modules/typescript/package.json');
    await writeFile(manifest, JSON.stringify({ name: 'typescript', version: '5.9.4' }));
    await build();
    expect(await tscRuns()).toBe(5);
    await build();
    expect(await tscRuns()).toBe(5);
  });

  it('compiles again when an output is missing, or when asked to with --force', async () => {
    await build();
    await rm(join(project, 'dist/cli/main.js'));
    await build();
    expect(await tscRuns()).toBe(2);
    await build('--force');
    expect(await tscRuns()).toBe(3);
  });

  it('with --check only says whether dist/ is up to date, and never compiles', async () => {
    const check = () =>
      exec(process.execPath, ['scripts/build.mjs', '--check'], { cwd: project }).then(
        ({ stdout }) => ({ code: 0, stdout }),
        (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
      );
    expect(await check()).toEqual({ code: 1, stdout: 'dist/ is not built from src/ as it is\n' });
    await build();
    expect(await check()).toEqual({ code: 0, stdout: 'dist/ is up to date with src/\n' });
    await writeFile(join(project, 'src/index.ts'), 'export const one = 4;\n');
    expect(await check()).toEqual({ code: 1, stdout: 'dist/ is not built from src/ as it is\n' });
    expect(await tscRuns()).toBe(1);
  });

  it('removes what an earlier build left before compiling', async () => {
    await build();
    await writeFile(join(project, 'dist/stale.js'), '');
    await writeFile(join(project, 'src/index.ts'), 'export const one = 3;\n');
    await build();
    await expect(readFile(join(project, 'dist/stale.js'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
