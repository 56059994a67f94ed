import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codingTools, fileStore, type SessionStore } from '../../src/index.ts';
import { scripted } from '../../src/testing.ts';
import {
  bigOutput,
  deterministicSystem,
  dump,
  fail,
  lastToolContent,
  notedPath,
  readBack,
  resultOf,
  tempDir,
  watchingStore,
} from './long-output-support.ts';

let workspace: string;
let sessions: string;
beforeEach(async () => {
  workspace = await tempDir('ws');
  sessions = await tempDir('sessions');
});

const savedFile = () => path.join(sessions, 'a1.outputs', '1-1-c1.txt');
const readFileTool = () => codingTools().find((tool) => tool.name === 'read_file')!;

describe('a tool result longer than the cap', () => {
  let seen: boolean[];
  afterEach(() => {
    // Checked here too, so no test below can pass with the write-ahead rule broken.
    expect(seen.every(Boolean)).toBe(true);
  });

  it('is saved whole beside the log before its tool.result is logged; the model reads head, tail and a note', async () => {
    seen = [];
    const store = watchingStore(fileStore(sessions), seen);
    const model = scripted(readBack);
    const system = deterministicSystem({ model, store, cwd: workspace, tools: [dump, readFileTool()] });
    const agent = await system.createAgent({ id: 'a1' });
    expect((await agent.run('Dump it, then read the middle.')).reason).toBe('completed');
    await system.dispose();

    const logged = resultOf(agent.log(), 'c1')!;
    const notePath = '/agentchart-outputs/a1/1-1-c1.txt';
    expect(logged.outcome).toBe('ok');
    expect(logged.content.length).toBeLessThanOrEqual(30_000);
    expect(logged.content.length).toBeGreaterThan(29_000);
    const [head, rest] = logged.content.split('\n[... ');
    const [note, tail] = rest!.split('.]\n');
    expect(bigOutput.startsWith(`${head}\n`)).toBe(true);
    expect(bigOutput.endsWith(tail!)).toBe(true);
    // Whole lines on both sides: rows 1-372 above the note, rows 4629-5000 below it.
    expect([head!.split('\n').length, head!.split('\n').at(-1), tail!.split('\n')[0]]).toEqual([
      372,
      `row 00372 ${'x'.repeat(29)}`,
      `row 04629 ${'x'.repeat(29)}`,
    ]);
    expect(note).toBe(
      `${bigOutput.length - head!.length - 1 - tail!.length} of 200000 characters cut here (lines 373-4628 of 5000). ` +
        `The whole output is saved read-only; read the rest with read_file {"path":"${notePath}","offset":373,"limit":2000}`,
    );
    // The model got exactly what was logged, and the file holds every byte.
    expect(lastToolContent(model.requests[1]!)).toBe(logged.content);
    expect(await readFile(savedFile(), 'utf8')).toBe(bigOutput);
    expect(seen).toEqual([true]);

    expect(resultOf(agent.log(), 'c2')).toEqual({
      callId: 'c2',
      outcome: 'ok',
      content:
        `  2500\trow 02500 ${'x'.repeat(29)}\n  2501\trow 02501 ${'x'.repeat(29)}\n  2502\trow 02502 ${'x'.repeat(29)}\n\n` +
        '[Showing lines 2500-2502 of 5000. To read further, call read_file with offset 2503.]',
    });
  });

  it('is readable in plan mode, and pages of it are never cut again', async () => {
    seen = [];
    const store = watchingStore(fileStore(sessions), seen);
    const model = scripted([
      { toolCalls: [{ id: 'c1', name: 'dump', input: {} }] },
      (request) => ({
        toolCalls: [{ id: 'c2', name: 'read_file', input: { path: notedPath(lastToolContent(request)) } }],
      }),
      { text: 'Done.' },
    ]);
    const system = deterministicSystem({
      model,
      store,
      cwd: workspace,
      tools: [dump, readFileTool()],
      permissionMode: 'plan',
      approve: 'deny',
      toolOutput: { maxChars: 5_000 },
    });
    const agent = await system.createAgent({ id: 'a1' });
    expect((await agent.run('Read it all.')).reason).toBe('completed');
    await system.dispose();
    expect(resultOf(agent.log(), 'c1')!.content.length).toBeLessThanOrEqual(5_000);
    const page = resultOf(agent.log(), 'c2')!;
    // read_file keeps its page under the cap (4,000 bytes here), so it says where to go on instead.
    expect([
      page.outcome,
      page.content.length <= 5_000,
      page.content.includes('/agentchart-outputs/'),
    ]).toEqual(['ok', true, false]);
    expect(page.content.split('\n').at(-1)).toBe(
      '[Output capped at 4000 bytes: showing lines 1-85 of 5000. To read further, call read_file with offset 86.]',
    );
    expect(seen).toEqual([true]);
  });

  it('may not be written or edited through its path', async () => {
    seen = [];
    const store = watchingStore(fileStore(sessions), seen);
    const model = scripted([
      { toolCalls: [{ id: 'c1', name: 'dump', input: {} }] },
      (request) => {
        const target = notedPath(lastToolContent(request));
        return {
          toolCalls: [
            { id: 'c2', name: 'write_file', input: { path: target, content: 'PWNED' } },
            {
              id: 'c3',
              name: 'edit_file',
              input: { path: target, old_string: 'row 00001', new_string: 'PWNED' },
            },
          ],
        };
      },
      { text: 'Done.' },
    ]);
    const tools = [dump, ...codingTools().filter((tool) => tool.name.endsWith('_file'))];
    const system = deterministicSystem({
      model,
      store,
      cwd: workspace,
      tools,
      permissionMode: 'accept-edits',
    });
    const agent = await system.createAgent({ id: 'a1' });
    await agent.run('Try to change it.');
    await system.dispose();
    const refused = ['c2', 'c3'].map((callId) => {
      const result = resultOf(agent.log(), callId)!;
      return [result.outcome, /outside the workspace/.test(result.content)];
    });
    expect(refused).toEqual([
      ['error', true],
      ['error', true],
    ]);
    expect(await readFile(savedFile(), 'utf8')).toBe(bigOutput);
  });

  it('cuts a long error too, and a save that fails is said in the note, never losing the result', async () => {
    seen = [];
    const blocker = path.join(sessions, 'not-a-folder');
    await writeFile(blocker, 'x');
    const inner = fileStore(sessions);
    // The store names a folder that cannot be made (a file is in the way).
    const store: SessionStore = {
      ...watchingStore(inner, seen),
      outputsFolder: () => path.join(blocker, 'outputs'),
    };
    const model = scripted([{ toolCalls: [{ id: 'c1', name: 'fail', input: {} }] }, { text: 'Noted.' }]);
    const system = deterministicSystem({ model, store, cwd: workspace, tools: [fail] });
    const agent = await system.createAgent({ id: 'a1' });
    expect((await agent.run('Fail loudly.')).reason).toBe('completed');
    await system.dispose();
    const result = resultOf(agent.log(), 'c1')!;
    expect([result.outcome, result.content.length <= 30_000, result.error!.length <= 30_000]).toEqual([
      'error',
      true,
      true,
    ]);
    expect(result.content.startsWith('Error: row 00001')).toBe(true);
    expect(result.content).toMatch(
      /characters cut here \(lines \d+-\d+ of 5000\); the whole output could not be saved: .*ENOTDIR/,
    );
    // Every call has its one result, and the log loads again.
    expect((await inner.load('a1')).events).toEqual(agent.log());
  });
});
