// The file store keeps no memory per session once the agents using it are gone: creating and disposing
// a thousand agents leaves it holding nothing, so a long-lived host does not grow with every session.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAgentSystem, fileStore } from '../../src/index.ts';
import { scripted } from '../../src/testing.ts';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('fileStore memory per session', () => {
  it('holds state only for live sessions: none after 1,000 agents were created, run and disposed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentchart-store-memory-'));
    dirs.push(dir);
    const store = fileStore(dir);
    const system = createAgentSystem({
      model: scripted(new Array(1_000).fill({ text: 'ok' })),
      store,
      projectInstructions: false,
    });
    const live = await system.createAgent({ id: 'live' });
    expect(store.retainedSessions()).toBe(1);
    for (let index = 0; index < 1_000; index++) {
      const agent = await system.createAgent({ id: `a${index}` });
      if (index % 100 === 0) await agent.run('hello');
      await agent.dispose();
    }
    // Only the agent that is still live is held.
    expect(store.retainedSessions()).toBe(1);
    await live.dispose();
    expect(store.retainedSessions()).toBe(0);
    // What was disposed is still on disk and loads again (and loading keeps nothing either).
    expect((await store.load('a100')).events.map((event) => event.type).slice(0, 2)).toEqual([
      'session.start',
      'inbox.queued',
    ]);
    expect(store.retainedSessions()).toBe(0);
    expect((await readdir(dir)).length).toBe(1_001);
    await system.dispose();
  }, 60_000);
});
