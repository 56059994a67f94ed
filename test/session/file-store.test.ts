import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogFormatError } from '../../src/errors/log-format-error.ts';
import { fileStore } from '../../src/session/file-store.ts';
import { sessionFileLocation, sessionIdFromFile } from '../../src/session/session-files.ts';
import { makeEvent, runStoreContract, sampleLog } from '../support/store-contract.ts';

let root = '';
let counter = 0;
const freshDir = () => join(root, `store-${++counter}`);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'agentchart-file-store-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

runStoreContract('fileStore', () => fileStore(freshDir()));
runStoreContract("fileStore (durability: 'fsync')", () => fileStore(freshDir(), { durability: 'fsync' }));

const lines = (events: readonly object[]) => events.map((event) => `${JSON.stringify(event)}\n`).join('');

describe('fileStore files', () => {
  it('writes one JSON line per event to <dir>/<sessionId>.jsonl, creating the directory', async () => {
    const dir = join(freshDir(), 'nested', 'deeper');
    const store = fileStore(dir);
    await store.create('s1');
    await store.append('s1', sampleLog());
    expect(await readFile(join(dir, 's1.jsonl'), 'utf8')).toBe(lines(sampleLog()));
  });

  it('drops a torn last line without newline, truncates the file and stays appendable', async () => {
    const dir = freshDir();
    const store = fileStore(dir);
    const log = sampleLog();
    await store.create('torn');
    await store.append('torn', log.slice(0, 4));
    const file = join(dir, 'torn.jsonl');
    const good = lines(log.slice(0, 4));
    // A complete-looking JSON object without its newline is still a torn write: its value may be cut.
    await writeFile(file, `${good}{"v":1,"seq":4,"ts":10`);
    const loaded = await fileStore(dir).load('torn');
    expect(loaded.events).toEqual(log.slice(0, 4));
    expect(loaded.warnings).toEqual([
      `${file}: line 5 was torn (incomplete last write, probably a crash); ` +
        `dropped it and truncated the file to ${Buffer.byteLength(good)} bytes`,
    ]);
    expect((await stat(file)).size).toBe(Buffer.byteLength(good));
    const again = fileStore(dir);
    await again.append('torn', log.slice(4));
    expect(await again.load('torn')).toEqual({ events: log, warnings: [] });
  });

  it('refuses a bad line that is not the last, naming its line number', async () => {
    const dir = freshDir();
    const log = sampleLog();
    await fileStore(dir).create('bad');
    const file = join(dir, 'bad.jsonl');
    await writeFile(file, `${lines(log.slice(0, 1))}{oops\n${lines(log.slice(1))}`);
    const error = await fileStore(dir)
      .load('bad')
      .then(
        () => undefined,
        (reason: unknown) => reason,
      );
    expect(error).toBeInstanceOf(LogFormatError);
    expect((error as Error).message).toMatch(new RegExp(`^${file}: line 2: not valid JSON`));
    expect(await readFile(file, 'utf8')).toBe(`${lines(log.slice(0, 1))}{oops\n${lines(log.slice(1))}`);
  });

  it('refuses a complete last line with bad data instead of dropping it', async () => {
    const dir = freshDir();
    await fileStore(dir).create('baddata');
    const bad = makeEvent(1, 'turn.end', { reason: 'completed', usage: { inputTokens: 1 } } as never);
    await writeFile(join(dir, 'baddata.jsonl'), lines([sampleLog()[0] as object, bad]));
    await expect(fileStore(dir).load('baddata')).rejects.toThrow(
      /baddata.jsonl: line 2: bad data for "turn.end"/,
    );
  });

  it('refuses session ids that could leave the directory', async () => {
    const store = fileStore(freshDir());
    for (const id of ['../x', 'a/b', '..', '']) {
      await expect(store.create(id)).rejects.toThrow(`invalid session id "${id}"`);
    }
  });

  it('finds the store and session id of a log file path', () => {
    expect(sessionIdFromFile('/runs/abc-1.jsonl')).toBe('abc-1');
    expect(sessionFileLocation('runs/x/abc.jsonl')).toEqual({ dir: 'runs/x', sessionId: 'abc' });
    expect(() => sessionIdFromFile('/runs/abc.json')).toThrow('is not a session log');
    expect(() => sessionIdFromFile('/runs/.jsonl')).toThrow('is not a session log');
  });
});
