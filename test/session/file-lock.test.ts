// The file store's session lock on a real directory: who holds it, a crashed holder's lock taken over,
// a live or foreign holder refused, and a release that only removes its own claim.
// The lock is a folder `<id>.lock` with one claim file `<uuid>.holder` naming the holder.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/config-error.ts';
import { fileStore } from '../../src/session/file-store.ts';
import { formatLogLine } from '../../src/session/schema.ts';
import { runScript } from '../support/child-run.ts';
import { sampleLog } from '../support/store-contract.ts';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function freshStore() {
  const dir = await mkdtemp(join(tmpdir(), 'agentchart-lock-'));
  dirs.push(dir);
  const store = fileStore(dir);
  await store.create('s');
  return { dir, store, lockPath: join(dir, 's.lock') };
}

/** The holders named in a lock folder, one per claim file. */
async function holdersOf(lockPath: string): Promise<Record<string, unknown>[]> {
  const claims = await readdir(lockPath);
  return Promise.all(claims.map(async (claim) => JSON.parse(await readFile(join(lockPath, claim), 'utf8'))));
}

/** Writes a lock folder with one claim naming `holder`, as another process would have left it. */
async function writeLock(lockPath: string, holder: object, claim = 'other.holder'): Promise<void> {
  await mkdir(lockPath, { recursive: true });
  await writeFile(join(lockPath, claim), JSON.stringify(holder));
}

/** The pid of a process that has already exited. */
function deadPid(): number {
  const done = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
  return done.pid!;
}

function liveProcess(): ChildProcess {
  const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  children.push(holder);
  return holder;
}

describe('fileStore session lock', () => {
  it('is a folder <id>.lock naming this process, not listed as a session, and removed on release', async () => {
    const { dir, store, lockPath } = await freshStore();
    const lock = await store.lock!('s');
    expect(await holdersOf(lockPath)).toEqual([
      { pid: process.pid, host: hostname(), process: expect.any(String) },
    ]);
    expect(await store.list()).toEqual(['s']);
    await lock.release();
    expect(await readdir(dir)).toEqual(['s.jsonl']);
  });

  it('takes over the lock of a process that took it and died', async () => {
    const { dir, store, lockPath } = await freshStore();
    const crashed = await runScript('test/fixtures/boundary/lock-contender.ts', {
      args: [dir, 's', 'exit-holding'],
    });
    expect(crashed).toMatchObject({ code: 0, timedOut: false });
    expect(await holdersOf(lockPath)).toEqual([expect.objectContaining({ host: hostname() })]);
    const lock = await store.lock!('s');
    expect(await holdersOf(lockPath)).toEqual([expect.objectContaining({ pid: process.pid })]);
    await lock.release();
    expect(await readdir(dir)).toEqual(['s.jsonl']);
  });

  it('takes over a lock file of an earlier agentchart (a plain JSON file) whose process is gone', async () => {
    const { store, lockPath } = await freshStore();
    await writeFile(lockPath, JSON.stringify({ pid: deadPid(), host: hostname(), claim: 1 }));
    const lock = await store.lock!('s');
    expect(await holdersOf(lockPath)).toEqual([expect.objectContaining({ pid: process.pid })]);
    await lock.release();
  });

  it("takes over a claim with this process's pid written by an earlier process (pid reused)", async () => {
    const { store, lockPath } = await freshStore();
    await writeLock(lockPath, { pid: process.pid, host: hostname(), process: 'an-earlier-process' });
    const lock = await store.lock!('s');
    expect(await holdersOf(lockPath)).toEqual([
      { pid: process.pid, host: hostname(), process: expect.not.stringMatching(/^an-earlier-process$/) },
    ]);
    await lock.release();
  });

  it('refuses while a live process holds it, naming the holder and the lock', async () => {
    const { store, lockPath } = await freshStore();
    const holder = liveProcess();
    await writeLock(lockPath, { pid: holder.pid, host: hostname(), process: 'p' });
    const refused = store.lock!('s');
    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(refused).rejects.toThrow(
      `session "s" is held by a live agent (pid ${holder.pid} on ${hostname()}); dispose that agent first, ` +
        `or remove ${lockPath} if its process is gone`,
    );
    expect(await holdersOf(lockPath)).toEqual([{ pid: holder.pid, host: hostname(), process: 'p' }]);
  });

  it('never takes over a lock it cannot check: another host, an unreadable claim, or a legacy file', async () => {
    const { store, lockPath } = await freshStore();
    await writeLock(lockPath, { pid: deadPid(), host: `not-${hostname()}` });
    await expect(store.lock!('s')).rejects.toThrow(/is held by a live agent \(pid \d+ on not-/);
    await writeLock(lockPath, 'not json' as unknown as object);
    await expect(store.lock!('s')).rejects.toThrow(/is held by an agent this process cannot identify/);
    await rm(lockPath, { recursive: true });
    await writeFile(lockPath, 'not json');
    await expect(store.lock!('s')).rejects.toThrow(/is held by an agent this process cannot identify/);
    expect(await readFile(lockPath, 'utf8')).toBe('not json');
  });

  it('a release removes only its own claim, never one that replaced it', async () => {
    const { store, lockPath } = await freshStore();
    const lock = await store.lock!('s');
    // As if this process had been judged gone and another had taken the session over.
    await rm(lockPath, { recursive: true });
    const other = { pid: process.pid, host: hostname(), process: 'another' };
    await writeLock(lockPath, other);
    await lock.release();
    await lock.release();
    expect(await holdersOf(lockPath)).toEqual([other]);
  });

  it('a load leaves a torn last line alone while a live agent holds the session; its holder cuts it off', async () => {
    const { dir, store, lockPath } = await freshStore();
    const file = join(dir, 's.jsonl');
    const text = `${sampleLog().map(formatLogLine).join('')}{"v":1,"seq":7`;
    await writeFile(file, text);
    const holder = liveProcess();
    await writeLock(lockPath, { pid: holder.pid, host: hostname() });
    const read = await store.load('s');
    expect(read.events).toHaveLength(7);
    expect(read.warnings).toEqual([
      expect.stringMatching(/line 8 was torn.*\(left as it is: the session is held\)$/),
    ]);
    expect(await readFile(file, 'utf8')).toBe(text);

    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    const lock = await store.lock!('s');
    expect((await store.load('s')).warnings).toEqual([expect.stringMatching(/truncated the file/)]);
    expect(await readFile(file, 'utf8')).toBe(sampleLog().map(formatLogLine).join(''));
    await lock.release();
  });
});
