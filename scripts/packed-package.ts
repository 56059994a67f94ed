// The package as `npm pack` makes it, for what installs it into an empty project from the npm registry
// as a user's install would: the package tests, and the install-size script that writes the table in
// docs/what-it-costs.md.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
export const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs a command; resolves with its output and exit code instead of throwing on a non-zero exit. */
export async function run(file: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) {
  try {
    const { stdout, stderr } = await exec(file, args, { ...options, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** What `npm pack --json` reports of a tarball. */
export type Packed = { path: string; size: number; unpackedSize: number; entryCount: number };

/**
 * Packs agentchart into `work` and returns the tarball's path. The package folder holds what `files`
 * ships, with dist built into it (not into the repository's dist/, which other tests run from), packed
 * without scripts since it is already built.
 */
export async function packAgentchart(work: string): Promise<string> {
  return (await packWithFacts(work)).path;
}

/** `packAgentchart`, with the size and file count `npm pack` reports. */
export async function packWithFacts(work: string): Promise<Packed> {
  const pkg = join(work, 'agentchart');
  await mkdir(pkg, { recursive: true });
  for (const name of ['package.json', 'README.md', 'bin'])
    await cp(join(root, name), join(pkg, name), { recursive: true });
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  await exec(
    process.execPath,
    [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', join(pkg, 'dist')],
    {
      cwd: root,
    },
  );
  const packed = await exec(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: pkg,
  });
  const [facts] = JSON.parse(packed.stdout) as [Omit<Packed, 'path'> & { filename: string }];
  const { filename, size, unpackedSize, entryCount } = facts;
  return { path: join(work, filename), size, unpackedSize, entryCount };
}

/**
 * Packs agentchart into a new temporary folder and installs the tarball with `dependencies` into an empty
 * ES-module project there (`<work>/project`), as a user's `npm install` would. Returns both folders, the
 * install's output, and a way to remove them.
 */
export async function installPacked(
  prefix: string,
  dependencies: string[],
): Promise<{ work: string; project: string; install: Awaited<ReturnType<typeof run>> }> {
  const work = await mkdtemp(join(tmpdir(), prefix));
  const tarball = await packAgentchart(work);
  const project = join(work, 'project');
  await mkdir(project);
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'user-project', private: true, type: 'module' }),
  );
  const install = await run(
    npm,
    ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, ...dependencies],
    { cwd: project },
  );
  return { work, project, install };
}
