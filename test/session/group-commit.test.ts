// The file store's group commit: appends that queue up while a write is in flight go out as one write,
// in call order; a held session keeps its file open between writes and still notices a deleted file; a
// torn last line still loads. Counted through the store's own queue and the file's bytes, never timed.
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileAppender } from '../../src/session/file-appender.ts';
import { fileStore } from '../../src/session/file-store.ts';
import { makeEvent, sampleLog } from '../support/store-contract.ts';

let root = '';
let counter = 0;
const freshDir = () => join(root, `group-${++counter}`);
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'agentchart-group-commit-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const lines = (events: readonly object[]) => events.map((event) => `${JSON.stringify(event)}\n`).join('');
/** A session.start, then inbox entries: a log that loads, `count` events long. */
const queuedLog = (count: number) =>
  Array.from({ length: count }, (_, seq) =>
    seq === 0
      ? makeEvent(0, 'session.start', { agentId: 's', config: {} })
      : makeEvent(seq, 'inbox.queued', { id: `q${seq}`, channel: 'inject', message: `m${seq}` }),
  );

/** A FileAppender over a FIFO queue that counts the writes it runs (each queued work is one write). */
function countingAppender(durability: 'flush' | 'fsync', keepOpen: boolean) {
  let tail: Promise<unknown> = Promise.resolve();
  const counts = { writes: 0 };
  const appender = new FileAppender(
    durability,
    (_sessionId, work) => {
      counts.writes++;
      const result = tail.then(work);
      tail = result.catch(() => undefined);
      return result;
    },
    () => keepOpen,
  );
  return { appender, counts };
}

describe('file store group commit', () => {
  for (const [durability, keepOpen] of [
    ['flush', false],
    ['fsync', false],
    ['fsync', true],
  ] as const) {
    it(`writes everything queued behind a write in flight as one write, in order (${durability}${keepOpen ? ', kept open' : ''})`, async () => {
      const dir = freshDir();
      const store = fileStore(dir);
      await store.create('s');
      const file = join(dir, 's.jsonl');
      const { appender, counts } = countingAppender(durability, keepOpen);
      const texts = Array.from({ length: 200 }, (_, index) => `${index}\n`);
      const first = appender.append('s', file, texts[0]!);
      // The first write is under way now; the other 199 queue up behind it.
      await Promise.resolve();
      const rest = texts.slice(1).map((text) => appender.append('s', file, text));
      await Promise.all([first, ...rest]);
      expect(counts.writes).toBe(2);
      expect(await readFile(file, 'utf8')).toBe(texts.join(''));
      await appender.close('s');
    });
  }

  it('keeps call order across appends, loads and a removal, with writes grouped between them', async () => {
    const store = fileStore(freshDir());
    await store.create('s');
    const log = queuedLog(60);
    const appends = log.slice(0, 30).map((event) => store.append('s', [event]));
    const loaded = store.load('s');
    const later = log.slice(30).map((event) => store.append('s', [event]));
    await Promise.all([...appends, ...later]);
    // The load was queued after the first 30 appends and before the rest: it sees exactly those.
    expect((await loaded).events).toEqual(log.slice(0, 30));
    expect((await store.load('s')).events).toEqual(log);
    const removed = store.remove('s');
    const afterRemoval = store.append('s', [
      makeEvent(60, 'inbox.queued', { id: 'q60', channel: 'inject', message: 'm60' }),
    ]);
    await removed;
    await expect(afterRemoval).rejects.toThrow('session "s" does not exist');
  });

  it('a held session keeps its file open; a deleted file is reported, and a torn tail still loads', async () => {
    const dir = freshDir();
    const store = fileStore(dir, { durability: 'fsync' });
    const file = join(dir, 's.jsonl');
    await store.create('s');
    const lock = await store.lock!('s');
    const log = sampleLog();
    await store.append('s', log.slice(0, 3));
    // A crash in the middle of a write leaves a torn last line; the held session's load cuts it.
    await appendFile(file, '{"v":1,"seq":3,');
    const loaded = await store.load('s');
    expect(loaded.events).toEqual(log.slice(0, 3));
    expect(loaded.warnings).toHaveLength(1);
    await store.append('s', log.slice(3));
    expect(await readFile(file, 'utf8')).toBe(lines(log));
    await rm(file);
    await expect(store.append('s', [makeEvent(log.length, 'turn.start', {})])).rejects.toThrow(
      `session "s" does not exist (${file})`,
    );
    await lock.release();
    expect(store.retainedSessions()).toBe(0);
  });
});
