// The file store's session lock on a real directory: who holds it, a crashed holder's lock taken over,
// a live or foreign holder refused, and a release that only removes its own claim.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/config-error.ts';
import { fileStore } from '../../src/session/file-store.ts';
import { formatLogLine } from '../../src/session/schema.ts';
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
  return { dir, store, lockFile: join(dir, 's.lock') };
}

const holderOf = async (file: string) => JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;

/** The pid of a process that has already exited. */
function deadPid(): number {
  const done = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
  return done.pid!;
}

describe('fileStore session lock', () => {
  it('writes <id>.lock naming this process, is not listed as a session, and is removed on release', async () => {
    const { store, lockFile } = await freshStore();
    const lock = await store.lock!('s');
    expect(await holderOf(lockFile)).toMatchObject({ pid: process.pid, host: hostname() });
    expect(await store.list()).toEqual(['s']);
    await lock.release();
    await expect(readFile(lockFile)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('takes over the lock of a crashed process on this host', async () => {
    const { store, lockFile } = await freshStore();
    await writeFile(lockFile, JSON.stringify({ pid: deadPid(), host: hostname(), claim: 1 }));
    const lock = await store.lock!('s');
    expect(await holderOf(lockFile)).toMatchObject({ pid: process.pid });
    await lock.release();
  });

  it('refuses while a live process holds it, naming the holder and the lock file', async () => {
    const { store, lockFile } = await freshStore();
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    children.push(holder);
    await writeFile(lockFile, JSON.stringify({ pid: holder.pid, host: hostname(), claim: 1 }));
    const refused = store.lock!('s');
    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(refused).rejects.toThrow(`(pid ${holder.pid} on ${hostname()})`);
    await expect(refused).rejects.toThrow(lockFile);
    expect(await holderOf(lockFile)).toMatchObject({ pid: holder.pid });
  });

  it('never takes over a lock it cannot check: another host, or a lock file it cannot read', async () => {
    const { store, lockFile } = await freshStore();
    await writeFile(lockFile, JSON.stringify({ pid: deadPid(), host: `not-${hostname()}`, claim: 1 }));
    await expect(store.lock!('s')).rejects.toThrow(/is held by a live agent \(pid \d+ on not-/);
    await writeFile(lockFile, 'not json');
    await expect(store.lock!('s')).rejects.toThrow(/is held by a live agent; dispose that agent first/);
  });

  it('a release leaves alone a lock that someone else has taken since', async () => {
    const { store, lockFile } = await freshStore();
    const lock = await store.lock!('s');
    const other = { pid: process.pid, host: hostname(), claim: -1 };
    await writeFile(lockFile, JSON.stringify(other));
    await lock.release();
    expect(await holderOf(lockFile)).toEqual(other);
  });

  it('a load leaves a torn last line alone while a live agent holds the session; its holder cuts it off', async () => {
    const { dir, store, lockFile } = await freshStore();
    const file = join(dir, 's.jsonl');
    const text = `${sampleLog().map(formatLogLine).join('')}{"v":1,"seq":7`;
    await writeFile(file, text);
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    children.push(holder);
    await writeFile(lockFile, JSON.stringify({ pid: holder.pid, host: hostname(), claim: 1 }));
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
