// A bad event from anywhere upstream of the session log (here a host clock that starts returning NaN,
// and a custom tool that returns content that is not a string) fails at write time: it never reaches
// the store, the turn ends with the error, and the session file loads and resumes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Clock,
  createAgentSystem,
  defineTool,
  fileStore,
  type LogEvent,
  LogFormatError,
  type ToolOutput,
} from '../../src/index.ts';
import { scripted } from '../../src/testing.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentchart-writer-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => [LogFormatError.isInstance(error), (error as Error).message],
  );

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
  it('a clock that starts returning NaN: the turn ends model_error with the cause, the store keeps a valid prefix', async () => {
    let time = 0;
    let broken = false;
    const clock: Clock = {
      now: () => (broken ? Number.NaN : ++time),
      setTimer: (callback, ms) => {
        const timer = setTimeout(callback, ms);
        return () => clearTimeout(timer);
      },
    };
    const system = createAgentSystem({
      model: scripted([{ text: 'never asked' }]),
      store: fileStore(dir),
      clock,
      projectInstructions: false,
    });
    const agent = await system.createAgent({ id: 'clock' });
    broken = true;
    const cause = 'event 1 ("inbox.queued") cannot be written: ts NaN is not a finite number';
    expect(await rejection(agent.run('hello'))).toEqual([true, cause]);
    expect(agent.log().find((event) => event.type === 'turn.end')?.data).toEqual({
      reason: 'model_error',
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      error: { kind: 'server', message: `the session log could not be written: ${cause}`, retryable: false },
    });
    broken = false;
    await system.dispose().catch(() => {
      // Dispose reports the same refusal again (fail-stop); the store is what this test is about.
    });
    expect(await loadAndResume('clock')).toEqual({ types: ['session.start'], resumed: 'completed' });
  });

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
