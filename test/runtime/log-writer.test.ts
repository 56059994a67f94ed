// A bad value from upstream of the session log (here a custom tool that returns content that is not a
// string) never reaches the store, and the session file loads and resumes. Since the host boundary
// parses tool outputs (and guards the clock), the writer's own check is a second line behind it; its
// fail-stop behaviour is tested on `SessionLog` directly in test/session/log-writer-check.test.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgentSystem, defineTool, fileStore, type LogEvent, type ToolOutput } from '../../src/index.ts';
import { scripted } from '../../src/testing.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentchart-writer-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Loads the session from a fresh store, then resumes it and runs one more turn. */
async function loadAndResume(id: string): Promise<{ types: string[]; resumed: string }> {
  const { events } = await fileStore(dir).load(id);
  const system = createAgentSystem({
    model: scripted([{ text: 'Back again.' }]),
    store: fileStore(dir),
    projectInstructions: false,
  });
  const agent = await system.resumeAgent(id);
  const resumed = (await agent.run('Still there?')).reason;
  await system.dispose();
  return { types: events.map((event: LogEvent) => event.type), resumed };
}

describe('the session log refuses an event it could not load again', () => {
  it('a tool result whose content is not a string never reaches the store, and the session loads and resumes', async () => {
    const numberTool = defineTool({
      name: 'count',
      description: 'Returns a number where text belongs.',
      access: 'none',
      input: z.object({}),
      // What a plain JavaScript tool may return: the type checker never saw it.
      run: async () => ({ content: 5 }) as unknown as ToolOutput,
    });
    const system = createAgentSystem({
      model: scripted([{ toolCalls: [{ id: 'c1', name: 'count', input: {} }] }, { text: 'Counted.' }]),
      tools: [numberTool],
      store: fileStore(dir),
      permissionMode: 'bypass',
      projectInstructions: false,
    });
    const agent = await system.createAgent({ id: 'tool' });
    await agent.run('Count.').catch(() => {
      // How the turn ends depends on how tool outputs are read; the store is what this test is about.
    });
    await system.dispose().catch(() => {
      // As above: a refused write is reported again on dispose.
    });
    const { events } = await fileStore(dir).load('tool');
    const contents = events.flatMap((event) =>
      event.type === 'tool.result' ? [typeof (event.data as { content: unknown }).content] : [],
    );
    expect(contents.filter((type) => type !== 'string')).toEqual([]);
    expect((await loadAndResume('tool')).resumed).toBe('completed');
  });
});
