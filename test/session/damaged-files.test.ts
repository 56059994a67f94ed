// The file store on damaged or wrong files: only a torn last write after a real session is cut off; any
// other damage is a LogFormatError that leaves the file byte for byte as it was; a path that is not a
// readable session file is a ConfigError naming it, never a raw EISDIR / ENOTDIR / ELOOP.
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentchartError, fileStore, type SessionStore } from '../../src/index.ts';
import { runScript } from '../support/child-run.ts';
import { sampleLog } from '../support/store-contract.ts';

let root = '';
let counter = 0;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'agentchart-damaged-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function freshDir(): Promise<string> {
  const dir = join(root, `d${++counter}`);
  await mkdir(dir);
  return dir;
}

const lines = (events: readonly object[]) => events.map((event) => `${JSON.stringify(event)}\n`).join('');

/** What a call rejected with, as `{ name, code, message }`; fails when it resolved. */
async function failureOf(
  promise: Promise<unknown>,
): Promise<{ name: string; code: string; message: string }> {
  const error: unknown = await promise.then(
    () => new Error('expected a rejection'),
    (reason: unknown) => reason,
  );
  expect(AgentchartError.isInstance(error)).toBe(true);
  const { name, code, message } = error as AgentchartError;
  return { name, code, message };
}

/** Writes `text` as session `s` and loads it; the file must be left exactly as written. */
async function loadUntouched(text: string) {
  const dir = await freshDir();
  const file = join(dir, 's.jsonl');
  await writeFile(file, text);
  const failure = await failureOf(fileStore(dir).load('s'));
  expect(await readFile(file, 'utf8')).toBe(text);
  return { file, failure };
}

describe('fileStore: only a torn last write after a real session is cut off', () => {
  it('refuses a file of notes (complete lines that are not events) and leaves it as it is', async () => {
    const { file, failure } = await loadUntouched('notes\n');
    expect(failure).toMatchObject({ name: 'LogFormatError', code: 'log_format' });
    expect(failure.message).toMatch(new RegExp(`^${file}: line 1: not valid JSON`));
  });

  it('refuses notes without a trailing newline: there is no session before the "torn" line', async () => {
    const { file, failure } = await loadUntouched('notes');
    expect(failure).toEqual({
      name: 'LogFormatError',
      code: 'log_format',
      message:
        `${file}: line 1 has no newline and no "session.start" comes before it: not a session log, ` +
        'or one whose first write was torn; the file was left as it is',
    });
  });

  it('refuses a complete last line that does not parse, naming the file and line', async () => {
    const text = `${lines(sampleLog().slice(0, 2))}\u0000\u0000\u0000\n`;
    const { file, failure } = await loadUntouched(text);
    expect(failure.name).toBe('LogFormatError');
    expect(failure.message).toMatch(new RegExp(`^${file}: line 3: not valid JSON`));
  });

  it('refuses a torn last line after lines that are not a session, and truncates nothing', async () => {
    const notSession = lines(sampleLog().slice(1, 3));
    const { failure } = await loadUntouched(`${notSession}{"v":1,"seq":`);
    expect(failure.message).toMatch(/line 3 has no newline and no "session.start" comes before it/);
  });

  it('refuses a torn last line after a session whose seq has a gap, before truncating anything', async () => {
    const log = sampleLog();
    const { file, failure } = await loadUntouched(`${lines([...log.slice(0, 2), ...log.slice(3)])}{"v":1`);
    expect(failure).toEqual({
      name: 'LogFormatError',
      code: 'log_format',
      message: `${file}: seq must be contiguous from 0: event 2 has seq 3`,
    });
  });

  it('refuses a torn first line: the session.start itself was cut, so there is nothing to keep', async () => {
    const { failure } = await loadUntouched('{"v":1,"seq":0,"ts":1,"type":"session.st');
    expect(failure.message).toMatch(/line 1 has no newline and no "session.start" comes before it/);
  });

  it('still cuts a torn last line after a valid session, with a warning, and stays appendable', async () => {
    const dir = await freshDir();
    const file = join(dir, 's.jsonl');
    const log = sampleLog();
    await writeFile(file, `${lines(log.slice(0, 3))}{"v":1,"seq":3,`);
    const store = fileStore(dir);
    expect(await store.load('s')).toEqual({
      events: log.slice(0, 3),
      warnings: [
        `${file}: line 4 was torn (incomplete last write, probably a crash); ` +
          `dropped it and truncated the file to ${Buffer.byteLength(lines(log.slice(0, 3)))} bytes`,
      ],
    });
    // The cut was made under the session's lock, taken for that moment and given back.
    expect(await readdir(dir)).toEqual(['s.jsonl']);
    await store.append('s', log.slice(3));
    expect(await readFile(file, 'utf8')).toBe(lines(log));
  });
});

describe('fileStore: a session file deleted under a live session', () => {
  it('is reported on the next append, never re-created without its session.start', async () => {
    const dir = await freshDir();
    const store = fileStore(dir);
    await store.create('s');
    await store.append('s', sampleLog().slice(0, 2));
    await rm(join(dir, 's.jsonl'));
    expect(await failureOf(store.append('s', sampleLog().slice(2)))).toEqual({
      name: 'ConfigError',
      code: 'config',
      message: `session "s" does not exist (${join(dir, 's.jsonl')})`,
    });
    expect(await store.exists('s')).toBe(false);
  });
});

describe('fileStore: a path that is not a readable session file is a ConfigError naming it', () => {
  type Operation = [name: string, run: (store: SessionStore) => Promise<unknown>];
  const operations: Operation[] = [
    ['load', (store) => store.load('s')],
    ['append', (store) => store.append('s', sampleLog())],
    ['create', (store) => store.create('s')],
    ['lock', (store) => store.lock!('s')],
    ['list', (store) => store.list()],
  ];

  it('<id>.jsonl is a directory: load and append say so, create says it exists', async () => {
    const dir = await freshDir();
    const file = join(dir, 's.jsonl');
    await mkdir(file);
    const store = fileStore(dir);
    expect(await failureOf(store.load('s'))).toEqual({
      name: 'ConfigError',
      code: 'config',
      message: `cannot read session "s": ${file} is a directory, not a session log`,
    });
    expect(await failureOf(store.append('s', sampleLog()))).toEqual({
      name: 'ConfigError',
      code: 'config',
      message: `cannot write session "s": ${file} is a directory, not a session log`,
    });
    expect((await failureOf(store.create('s'))).message).toBe(`session "s" already exists (${file})`);
  });

  it('the store directory is a file: every operation says a part of the path is not a directory', async () => {
    const parent = await freshDir();
    const dir = join(parent, 'plain-file');
    await writeFile(dir, 'not a directory');
    for (const [name, run] of operations) {
      const failure = await failureOf(run(fileStore(dir)));
      expect({ name, code: failure.code }).toEqual({ name, code: 'config' });
      expect(failure.message).toMatch(/: a part of the path is not a directory \(.*plain-file/);
    }
  });

  it('<id>.jsonl is a symbolic link loop: load and append say so', async () => {
    const dir = await freshDir();
    const file = join(dir, 's.jsonl');
    await symlink(file, file);
    const store = fileStore(dir);
    expect((await failureOf(store.load('s'))).message).toBe(
      `cannot read session "s": ${file} is a loop of symbolic links`,
    );
    expect((await failureOf(store.append('s', sampleLog()))).message).toBe(
      `cannot write session "s": ${file} is a loop of symbolic links`,
    );
  });

  it('a lock folder holding something other than one holder is refused as unknown, never taken over', async () => {
    const dir = await freshDir();
    const lock = join(dir, 's.lock');
    await mkdir(join(lock, 'junk'), { recursive: true });
    const failure = await failureOf(fileStore(dir).lock!('s'));
    expect(failure.name).toBe('ConfigError');
    expect(failure.message).toMatch(/session "s" is held by an agent this process cannot identify/);
  });

  it('permission denied (as a user the modes apply to): load, append, create and lock say so', async () => {
    const dir = await freshDir();
    await chmod(root, 0o755);
    await chmod(dir, 0o755);
    const unreadable = join(dir, 'readable-not');
    await mkdir(unreadable, { mode: 0o755 });
    await writeFile(join(unreadable, 's.jsonl'), lines(sampleLog()), { mode: 0o000 });
    const readOnly = join(dir, 'read-only');
    await mkdir(readOnly);
    await writeFile(join(readOnly, 'w.jsonl'), '', { mode: 0o444 });
    await chmod(readOnly, 0o555);
    const run = await runScript('test/fixtures/boundary/unprivileged-store.ts', { args: [dir] });
    expect(run).toMatchObject({ code: 0, timedOut: false, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual([
      {
        operation: 'load',
        name: 'ConfigError',
        message: `cannot read session "s": permission denied (${join(unreadable, 's.jsonl')})`,
      },
      {
        operation: 'append',
        name: 'ConfigError',
        message: `cannot write session "w": permission denied (${join(readOnly, 'w.jsonl')})`,
      },
      {
        operation: 'create',
        name: 'ConfigError',
        message: `cannot create session "n": permission denied (${join(readOnly, 'n.jsonl')})`,
      },
      {
        operation: 'lock',
        name: 'ConfigError',
        message: `cannot lock session "n": permission denied (${join(readOnly, 'n.lock')})`,
      },
    ]);
  });
});
