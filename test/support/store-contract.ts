import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentchartError } from '../../src/errors/agentchart-error.ts';
import { describeValue } from '../../src/errors/describe-value.ts';
import { emptyUsage } from '../../src/providers/types.ts';
import {
  LOG_FORMAT_VERSION,
  type LogEvent,
  type LogEventData,
  type LogEventType,
  type SessionStore,
} from '../../src/session/types.ts';

/** Builds one log event; tests state seq and position explicitly so expectations stay readable. */
export function makeEvent<K extends LogEventType>(
  seq: number,
  type: K,
  data: LogEventData[K],
  at: { turn?: number; step?: number; ts?: number } = {},
): LogEvent {
  const { ts = 1000 + seq, ...position } = at;
  return { v: LOG_FORMAT_VERSION, seq, ts, type, ...position, data };
}

/** A short, complete log: a session with one turn of one step that asks for nothing. */
export function sampleLog(): LogEvent[] {
  return [
    makeEvent(0, 'session.start', { agentId: 'a1', config: { model: 'scripted' } }),
    makeEvent(1, 'turn.start', {}, { turn: 1 }),
    makeEvent(2, 'user.message', { channel: 'followup', content: 'hi' }, { turn: 1 }),
    makeEvent(3, 'step.start', { model: 'scripted', toolNames: [], systemHash: 'h' }, { turn: 1, step: 1 }),
    makeEvent(
      4,
      'assistant.message',
      { text: 'hello', toolCalls: [], usage: emptyUsage, stopReason: 'end_turn' },
      { turn: 1, step: 1 },
    ),
    makeEvent(5, 'step.end', { toolResults: 0 }, { turn: 1, step: 1 }),
    makeEvent(6, 'turn.end', { reason: 'completed', usage: emptyUsage }, { turn: 1 }),
  ];
}

function noteEvents(from: number, count: number): LogEvent[] {
  return Array.from({ length: count }, (_, index) =>
    makeEvent(from + index, 'inbox.queued', { id: `q${from + index}`, channel: 'inject', message: 'm' }),
  );
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function expectAgentchartError(promise: Promise<unknown>, code: string, message: RegExp) {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(AgentchartError.isInstance(error)).toBe(true);
  expect((error as AgentchartError).code).toBe(code);
  expect((error as AgentchartError).message).toMatch(message);
}

/**
 * The behaviour every `SessionStore` must have. `makeStore` returns a fresh, empty store per test.
 *
 * Contract: run it once per store implementation, inside the store's own test file.
 */
export function runStoreContract(name: string, makeStore: () => SessionStore | Promise<SessionStore>): void {
  describe(`SessionStore contract: ${name}`, () => {
    it('round-trips created and appended events', async () => {
      const store = await makeStore();
      await store.create('s1');
      const log = sampleLog();
      await store.append('s1', log.slice(0, 3));
      await store.append('s1', log.slice(3));
      expect(await store.load('s1')).toEqual({ events: log, warnings: [] });
    });

    it('loads a created but empty session as an empty log', async () => {
      const store = await makeStore();
      await store.create('empty');
      expect(await store.load('empty')).toEqual({ events: [], warnings: [] });
      await store.append('empty', []);
      expect(await store.load('empty')).toEqual({ events: [], warnings: [] });
    });

    it('keeps order across many appends issued without waiting', async () => {
      const store = await makeStore();
      await store.create('many');
      const writes: Promise<void>[] = [store.append('many', [sampleLog()[0] as LogEvent])];
      let seq = 1;
      for (let batch = 0; batch < 60; batch++) {
        const size = (batch % 3) + 1;
        writes.push(store.append('many', noteEvents(seq, size)));
        seq += size;
      }
      await Promise.all(writes);
      const { events } = await store.load('many');
      expect(events.map((event) => event.seq)).toEqual(Array.from({ length: seq }, (_, index) => index));
    });

    it('does not alias appended objects: later mutation does not change the log', async () => {
      const store = await makeStore();
      await store.create('alias');
      const log = sampleLog();
      await store.append('alias', log);
      (log[2]?.data as { content: string }).content = 'changed';
      const loaded = await store.load('alias');
      expect(loaded.events[2]?.data).toEqual({ channel: 'followup', content: 'hi' });
      (loaded.events[2]?.data as { content: string }).content = 'changed again';
      expect((await store.load('alias')).events[2]?.data).toEqual({ channel: 'followup', content: 'hi' });
    });

    it('refuses to create a session twice', async () => {
      const store = await makeStore();
      await store.create('twice');
      await expectAgentchartError(store.create('twice'), 'config', /session "twice" already exists/);
    });

    it('fails clearly when loading or appending to a missing session', async () => {
      const store = await makeStore();
      await expectAgentchartError(store.load('ghost'), 'config', /session "ghost" does not exist/);
      await expectAgentchartError(
        store.append('ghost', sampleLog()),
        'config',
        /session "ghost" does not exist/,
      );
      expect(await store.exists('ghost')).toBe(false);
    });

    it('removes a session', async () => {
      const store = await makeStore();
      await store.create('gone');
      await store.append('gone', sampleLog());
      expect(await store.exists('gone')).toBe(true);
      await store.remove('gone');
      expect(await store.exists('gone')).toBe(false);
      expect(await store.list()).toEqual([]);
      await expectAgentchartError(store.load('gone'), 'config', /does not exist/);
      await store.create('gone');
      expect(await store.load('gone')).toEqual({ events: [], warnings: [] });
    });

    it('names a folder beside each log for saved outputs, when it has one, and removes it with the log', async () => {
      const store = await makeStore();
      if (store.outputsFolder === undefined) {
        // Without the method the runtime keeps saved outputs itself; nothing to check here. The file
        // store must have it (its outputs go with its files).
        expect(store.kind).not.toBe('file');
        return;
      }
      const folder = store.outputsFolder('kept');
      expect([
        isAbsolute(folder),
        store.outputsFolder('kept'),
        store.outputsFolder('other') !== folder,
      ]).toEqual([true, folder, true]);
      await store.create('kept');
      await mkdir(folder, { recursive: true });
      await writeFile(join(folder, '1-1-call.txt'), 'whole output');
      await store.remove('kept');
      expect(await readdir(folder).catch((error: NodeJS.ErrnoException) => error.code)).toBe('ENOENT');
    });

    it('lists sessions sorted by id', async () => {
      const store = await makeStore();
      expect(await store.list()).toEqual([]);
      for (const id of ['b', 'a', 'c-1']) await store.create(id);
      expect(await store.list()).toEqual(['a', 'b', 'c-1']);
    });

    it('refuses a log written by a newer format version', async () => {
      const store = await makeStore();
      await store.create('future');
      const log = sampleLog();
      await store.append('future', [
        ...log.slice(0, 2),
        { ...(log[2] as LogEvent), v: LOG_FORMAT_VERSION + 1 },
      ]);
      await expectAgentchartError(
        store.load('future'),
        'log_format',
        new RegExp(
          `line 3: written by a newer agentchart \\(format v${LOG_FORMAT_VERSION + 1}\\); ` +
            `this build reads up to v${LOG_FORMAT_VERSION}`,
        ),
      );
    });

    it('lets one live agent hold a session: a second lock is refused until the first is released', async () => {
      const store = await makeStore();
      await store.create('held');
      const lock = await store.lock!('held');
      await expectAgentchartError(store.lock!('held'), 'config', /session "held" is held by a live agent/);
      // Appends and loads are not blocked by the lock: it guards owners, not the data.
      await store.append('held', sampleLog().slice(0, 1));
      await lock.release();
      await lock.release();
      const again = await store.lock!('held');
      await again.release();
      expect((await store.load('held')).events).toHaveLength(1);
    });

    it('refuses to append to a removed session, and does not create it again', async () => {
      const store = await makeStore();
      await store.create('dropped');
      await store.append('dropped', sampleLog().slice(0, 1));
      await store.remove('dropped');
      await expectAgentchartError(
        store.append('dropped', sampleLog().slice(1, 2)),
        'config',
        /session "dropped" does not exist/,
      );
      expect(await store.exists('dropped')).toBe(false);
    });

    it('gives a session to exactly one of many lockers that race for it', async () => {
      const store = await makeStore();
      await store.create('raced');
      const attempts = await Promise.allSettled(Array.from({ length: 6 }, () => store.lock!('raced')));
      const won = attempts.flatMap((attempt) => (attempt.status === 'fulfilled' ? [attempt.value] : []));
      expect(won).toHaveLength(1);
      const lost = attempts.flatMap((attempt) => (attempt.status === 'rejected' ? [attempt.reason] : []));
      // Five lose, each with one of our errors (never a raw fs error).
      expect(lost.filter((reason) => AgentchartError.isInstance(reason))).toHaveLength(5);
      await won[0]!.release();
      await (await store.lock!('raced')).release();
    });

    it('refuses an id outside the shared rule at every method, naming it; accepted ids come back from list()', async () => {
      const store = await makeStore();
      // NUL (PostgreSQL text refuses it) and a lone surrogate (UTF-8 cannot hold it) among the usual ones.
      const refused = [
        '',
        '.',
        '..',
        'a/b',
        '../x',
        'a b',
        'é',
        'nul\u0000id',
        'lone\ud800',
        'x'.repeat(129),
      ];
      for (const id of refused) {
        const named = new RegExp(
          `^invalid session id ${escaped(describeValue(id))}: it must be an id of 1-128`,
        );
        await expectAgentchartError(store.create(id), 'config', named);
        await expectAgentchartError(store.append(id, sampleLog().slice(0, 1)), 'config', named);
        await expectAgentchartError(store.append(id, []), 'config', named);
        await expectAgentchartError(store.load(id), 'config', named);
        await expectAgentchartError(store.exists(id), 'config', named);
        await expectAgentchartError(store.remove(id), 'config', named);
        if (store.lock) await expectAgentchartError(store.lock(id), 'config', named);
        if (store.outputsFolder) expect(() => store.outputsFolder!(id)).toThrow(named);
      }
      expect(await store.list()).toEqual([]);
      const accepted = ['x'.repeat(128), 'A.b_c-9', '..a', '-', '_'];
      for (const id of accepted) await store.create(id);
      expect(await store.list()).toEqual(['-', '..a', 'A.b_c-9', '_', 'x'.repeat(128)]);
      for (const id of accepted) expect(await store.exists(id)).toBe(true);
    });

    it('refuses a log whose seq is not contiguous', async () => {
      const store = await makeStore();
      await store.create('gap');
      const log = sampleLog();
      await store.append('gap', [...log.slice(0, 2), ...log.slice(3)]);
      await expectAgentchartError(
        store.load('gap'),
        'log_format',
        /seq must be contiguous from 0: event 2 has seq 3/,
      );
    });
  });
}
