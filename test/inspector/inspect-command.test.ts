import { appendFile, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { inspectCommand } from '../../src/cli/commands/inspect.ts';
import type { AgentsPayload, InspectorMessage } from '../../src/inspector/protocol.ts';
import { scripted } from '../../src/providers/scripted.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { fileStore } from '../../src/session/file-store.ts';
import { parseLogText } from '../../src/session/log-text.ts';
import { defineTool } from '../../src/tools/define-tool.ts';
import { connectEvents, getJson } from './sse-reader.ts';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const echo = defineTool({
  name: 'echo',
  description: 'Echo text',
  access: 'none',
  concurrencySafe: true,
  input: z.object({ text: z.string() }),
  run: async ({ text }) => `echo: ${text}`,
});

/** Records a finished session with one tool call to `<dir>/s1.jsonl`. */
async function recordSession(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agentchart-inspect-'));
  dirs.push(dir);
  let n = 0;
  const system = createAgentSystem({
    model: scripted([
      { text: 'Echoing.', toolCalls: [{ id: 'c1', name: 'echo', input: { text: 'a' } }] },
      { text: 'Done.' },
    ]),
    tools: [echo],
    store: fileStore(dir),
    ids: () => `id${++n}`,
    projectInstructions: false,
    permissionMode: 'bypass',
  });
  const agent = await system.createAgent({ id: 's1' });
  await agent.run('go');
  await system.dispose();
  return join(dir, 's1.jsonl');
}

function capture() {
  let text = '';
  return { out: { write: (chunk: string) => (text += chunk) }, text: () => text };
}

/** Runs the command until `work(url)` is done, then stops it; returns its exit code and output. */
async function runInspect(options: { file?: string }, work: (url: string) => Promise<void>) {
  const stop = new AbortController();
  const stdout = capture();
  const stderr = capture();
  let ready!: (url: string) => void;
  const served = new Promise<string>((resolve) => (ready = resolve));
  const exit = inspectCommand(
    { ...options, port: 0, pace: false, signal: stop.signal, onReady: ready },
    { stdout: stdout.out, stderr: stderr.out, cwd: process.cwd() },
  );
  try {
    await work(await Promise.race([served, exit.then(() => Promise.reject(new Error('ended early')))]));
  } finally {
    stop.abort();
  }
  return { code: await exit, stdout: stdout.text(), stderr: stderr.text() };
}

describe('agentchart inspect', () => {
  it('serves a recorded session read-only, with the final states derived from the log', async () => {
    const file = await recordSession();
    // A torn last line (a crash mid-write) is skipped, and the file is left as it is.
    await appendFile(file, '{"v":1,"seq":');
    const size = (await stat(file)).size;
    let payload: AgentsPayload | undefined;
    let first: InspectorMessage | undefined;
    const { code, stdout, stderr } = await runInspect({ file }, async (url) => {
      payload = (await getJson<AgentsPayload>(url, '/api/agents')).body;
      const reader = await connectEvents(url);
      [first] = await reader.until((messages) => messages.length > 0);
      reader.close();
    });
    expect(code).toBe(0);
    expect(stdout).toContain(`Inspecting ${file}: 1 session(s),`);
    expect(stderr).toContain('line 18 was torn');
    expect((await stat(file)).size).toBe(size);
    expect(payload?.source).toBe('recorded');
    const [view] = payload!.agents;
    expect(view).toMatchObject({ id: 's1', state: 'disposed', live: false, logLength: 17 });
    expect(view!.tree).toBeUndefined();
    expect(view!.turns).toEqual([
      {
        turn: 1,
        state: 'ended',
        reason: 'completed',
        steps: [
          {
            step: 1,
            state: 'done',
            attempts: 0,
            calls: [{ callId: 'c1', name: 'echo', input: { text: 'a' }, state: 'done', outcome: 'ok' }],
          },
          { step: 2, state: 'done', attempts: 0, calls: [] },
        ],
      },
    ]);
    expect(first).toEqual({ kind: 'snapshot', ...payload });
    // The 17 whole lines before the torn one, read as the inspector reads them.
    const recorded = parseLogText(await readFile(file, 'utf8'), file).events.map((event) => event.type);
    expect(view!.recent.map((event) => event.type)).toEqual(recorded);
  });

  it('without a file, explains embedding and runs the scripted demo live once a page connects', async () => {
    let ended: InspectorMessage[] = [];
    const { code, stdout } = await runInspect({}, async (url) => {
      const reader = await connectEvents(url);
      ended = await reader.until((messages) =>
        messages.some((m) => m.kind === 'log' && m.event.type === 'turn.end'),
      );
      reader.close();
    });
    expect(code).toBe(0);
    expect(stdout).toContain('const inspector = await startInspector(system, { port: 4777 });');
    expect(stdout).toContain('the demo starts when the page connects');
    const end = ended.find((m) => m.kind === 'log' && m.event.type === 'turn.end');
    expect(end?.kind === 'log' && end.event.data.reason).toBe('completed');
    const calls = ended.flatMap((m) =>
      m.kind === 'log' && m.event.type === 'tool.call' ? [m.event.data.name] : [],
    );
    expect(calls).toEqual(['skill', 'glob', 'read_file', 'read_file', 'grep', 'bash', 'edit_file', 'bash']);
    expect(ended.some((m) => m.kind === 'delta' && m.agentId === 'demo')).toBe(true);
  });
});
