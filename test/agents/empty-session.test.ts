// An empty session (a crash after create, before session.start was written) cannot be resumed or forked:
// nothing of the agent (model, tools, system prompt, workspace) was recorded, so there is nothing to
// continue, and a resume that went on anyway would write a log that can never be read back.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AgentSystem,
  createAgentSystem,
  fileStore,
  LogFormatError,
  memoryStore,
  type SessionStore,
} from '../../src/index.ts';
import { scripted } from '../../src/testing.ts';

const dirs: string[] = [];
const systems: AgentSystem[] = [];
afterEach(async () => {
  await Promise.all(systems.splice(0).map((system) => system.dispose()));
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

function systemOn(store: SessionStore): AgentSystem {
  const system = createAgentSystem({
    model: scripted([{ text: 'never asked' }]),
    store,
    projectInstructions: false,
  });
  systems.push(system);
  return system;
}

const emptyLog =
  'the log is empty: the session was created but the process stopped before "session.start" was written, ' +
  'so nothing of the agent (model, tools, system prompt) was recorded; remove the session to reuse its id';

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error('expected a rejection'),
    (reason: unknown) => reason,
  );
}

describe('an empty session', () => {
  it('file store: resume and fork are refused with LogFormatError; the file, the lock and the folder stay as they were', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentchart-empty-'));
    dirs.push(dir);
    await writeFile(join(dir, 'e.jsonl'), '');
    const system = systemOn(fileStore(dir));

    const resumed = await rejectionOf(system.resumeAgent('e'));
    expect(resumed).toBeInstanceOf(LogFormatError);
    expect((resumed as Error).message).toBe(`cannot resume session "e": ${emptyLog}`);
    const forked = await rejectionOf(system.forkAgent('e', { id: 'f' }));
    expect(forked).toBeInstanceOf(LogFormatError);
    expect((forked as Error).message).toBe(`cannot fork session "e": ${emptyLog}`);

    expect(await readFile(join(dir, 'e.jsonl'), 'utf8')).toBe('');
    expect(await readdir(dir)).toEqual(['e.jsonl']);
    expect(system.list()).toEqual([]);
  });

  it('memory store: a created session with nothing appended is refused the same way', async () => {
    const store = memoryStore();
    await store.create('e');
    const system = systemOn(store);
    await expect(system.resumeAgent('e')).rejects.toThrow(`cannot resume session "e": ${emptyLog}`);
    await expect(system.forkAgent('e')).rejects.toThrow(`cannot fork session "e": ${emptyLog}`);
    expect(await store.load('e')).toEqual({ events: [], warnings: [] });
    expect(await store.list()).toEqual(['e']);
  });
});
