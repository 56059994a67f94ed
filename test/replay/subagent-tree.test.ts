// A subagent tree the real CLI recorded (the built `agentchart run --yes` against a local OpenAI-compatible
// server whose model calls `task`: a child that starts a grandchild which writes a file, then two children
// side by side), copied to another folder and checked there: `agentchart replay --check` as a child process
// and `expectReplay`, with recorded tools and with live tools on a restored workspace; a tampered child log
// fails naming the child, its seq and the field; a missing one names the child and where it was looked for;
// time travel draws the parent's frames with the children's actors while they run.
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/config-error.ts';
import { ReplayDivergenceError } from '../../src/errors/replay-divergence-error.ts';
import { computeFrames } from '../../src/inspector/time-travel.ts';
import { expectReplay, readRecordingTree } from '../../src/replay/expect-replay.ts';
import { readLog } from '../../src/session/log-text.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { runBuiltCliProcess } from '../support/child-run.ts';
import { sessionLogOf, useCliWorld, wireToolCall } from '../support/cli-world.ts';
import { expectCheckPasses } from '../support/replay-check.ts';
import { useTempFolders } from '../support/temp-folders.ts';
import type { OpenAIChatServer } from '../support/wire/openai-chat-server.ts';

const taskCall = (id: string, prompt: string) =>
  wireToolCall(id, 'task', { description: 'a helper', prompt });
const sessionOf = (file: string) =>
  file
    .split('/')
    .at(-1)!
    .replace(/\.jsonl$/, '');

describe('replay of a subagent tree the CLI recorded', () => {
  let server: OpenAIChatServer;
  let workspace: string;
  /** The copy of the folder of logs, in another temporary folder. */
  let copy: string;
  let root: string;
  let env: Record<string, string>;
  /** The recorded logs by session id, as the copy has them. */
  let logs: Map<string, LogEvent[]>;

  useCliWorld({ prefix: 'agentchart-tree', state: 'home', perFile: true }, (world) => {
    ({ server, workspace, env } = world);
  });
  const tempFolder = useTempFolders('agentchart-tree');

  beforeAll(async () => {
    // The copy the tests share: every test reads it, one folder for the whole file.
    copy = await mkdtemp(join(tmpdir(), 'agentchart-tree-copy-'));
    // The parent delegates; its child delegates again; the grandchild writes the note.
    server.reply({ turn: { toolCalls: [taskCall('p1', 'leave the note')] } });
    server.reply({ turn: { toolCalls: [taskCall('c1', 'write note.txt')] } });
    const write = { path: 'note.txt', content: 'remember the milk\n' };
    server.reply({ turn: { toolCalls: [wireToolCall('g1', 'write_file', write)] } });
    server.reply({ turn: { text: ['Wrote note.txt.'] } });
    server.reply({ turn: { text: ['The note is written.'] } });
    // Then two children side by side (their requests race: each child's log holds what it was answered).
    server.reply({ turn: { toolCalls: [taskCall('p2', 'check the note'), taskCall('p3', 'check again')] } });
    server.reply({ turn: { text: ['Looks fine.'] } });
    server.reply({ turn: { text: ['Still fine.'] } });
    server.reply({ turn: { text: ['Done: the note is there.'] } });
    const run = await runBuiltCliProcess(['run', 'leave a note', '--yes', '--cwd', workspace], {
      env,
      timeoutMs: 60_000,
    });
    expect(run).toMatchObject({ code: 0, timedOut: false });
    const file = sessionLogOf(run.stdout);
    const folder = join(file, '..');
    // The file store keeps every child's log beside its parent's: the folder is the tree.
    await cp(folder, copy, { recursive: true });
    root = join(copy, file.split('/').at(-1)!);
    logs = new Map();
    for (const name of await readdir(copy)) logs.set(sessionOf(name), await readLog(join(copy, name)));
    await rm(join(workspace, 'note.txt'));
  }, 120_000);
  afterAll(() => rm(copy, { recursive: true, force: true }));

  const spawnedBy = (sessionId: string) =>
    logs
      .get(sessionId)!
      .flatMap((event) =>
        event.type === 'agent.spawned' ? [(event.data as { childSessionId: string }).childSessionId] : [],
      );

  it('recorded a parent, a nested child and two side-by-side children, each in its own log', () => {
    const rootId = sessionOf(root);
    const children = spawnedBy(rootId);
    expect(children).toHaveLength(3);
    expect(children.map((child) => spawnedBy(child).length)).toEqual([1, 0, 0]);
    expect(logs.size).toBe(5);
  });

  it('checks clean with recorded tools from another folder, and with live tools on a restored workspace', async () => {
    const total = [...logs.values()].reduce((sum, events) => sum + events.length, 0);
    const passed = `Replay check passed: ${root} — ${total} events written again (this log and 4 subagents' logs), byte for byte.\n`;
    await expectCheckPasses(root, passed, { env, cwd: copy });
    await expectReplay(root);
    // Nothing ran: the grandchild's write came from its log.
    await expect(readdir(workspace)).resolves.toEqual([]);

    const restored = await tempFolder('restored');
    await expectCheckPasses(root, passed, { args: ['--tools', 'live', '--workspace', restored], env });
    expect(await readFile(join(restored, 'note.txt'), 'utf8')).toBe('remember the milk\n');
    await rm(join(restored, 'note.txt'));
    await expectReplay(root, { tools: 'live', workspace: restored });
    expect(await readFile(join(restored, 'note.txt'), 'utf8')).toBe('remember the milk\n');
  }, 120_000);

  it('fails on a tampered child log naming the child, its seq and the field', async () => {
    const tampered = await tempFolder('tampered');
    await cp(copy, tampered, { recursive: true });
    const child = spawnedBy(sessionOf(root))[0]!;
    const grandchild = spawnedBy(child)[0]!;
    // The grandchild's model now says something else: the child's `task` call answers differently.
    const grandchildFile = join(tampered, `${grandchild}.jsonl`);
    const text = await readFile(grandchildFile, 'utf8');
    expect(text).toContain('"text":"Wrote note.txt."');
    await writeFile(grandchildFile, text.replace('"text":"Wrote note.txt."', '"text":"Wrote nothing."'));
    const seq = logs
      .get(child)!
      .findIndex((event) => event.type === 'tool.result' && event.data.callId === 'c1');
    const rootFile = join(tampered, root.split('/').at(-1)!);
    const childFile = join(tampered, `${child}.jsonl`);
    const check = await runBuiltCliProcess(['replay', rootFile, '--check'], { env, timeoutMs: 60_000 });
    expect(check.stdout.split('\n')).toEqual([
      `Replay check FAILED: ${childFile} (subagent session ${child} of ${rootFile}) diverged at seq ${seq} (tool.result)`,
      '  why: task answered differently',
      '  data.content: "Wrote note.txt." → "Wrote nothing."',
      '  (--json prints the report with both whole lines)',
      '',
    ]);
    expect(check.code).toBe(1);

    const json = await runBuiltCliProcess(['replay', rootFile, '--check', '--json'], {
      env,
      timeoutMs: 60_000,
    });
    const report = JSON.parse(json.stdout) as { divergedFile: string; divergence: Record<string, unknown> };
    expect(json.code).toBe(1);
    expect(report.divergedFile).toBe(childFile);
    expect(report.divergence).toMatchObject({ sessionId: child, seq, recordedType: 'tool.result' });

    const error = await expectReplay(rootFile).catch((caught: unknown) => caught);
    expect(ReplayDivergenceError.isInstance(error)).toBe(true);
    expect((error as ReplayDivergenceError).toJSON()).toEqual(report.divergence);
    expect((error as Error).message.split('\n')[0]).toBe(
      `subagent session "${child}": replay diverged at seq ${seq} (tool.result): task answered differently`,
    );
  }, 120_000);

  it('refuses a tree whose child log is missing, naming the child and where it looked', async () => {
    const partial = await tempFolder('partial');
    const rootFile = join(partial, root.split('/').at(-1)!);
    await cp(root, rootFile);
    const child = spawnedBy(sessionOf(root))[0]!;
    const message =
      `subagent session "${child}" (started by call p1 of session "${sessionOf(root)}") has no readable ` +
      `log: looked for ${join(partial, `${child}.jsonl`)}. A tree replays from all its logs: copy the ` +
      "subagents' logs beside the parent's file";
    const check = await runBuiltCliProcess(['replay', rootFile, '--check'], { env, timeoutMs: 60_000 });
    expect({ stderr: check.stderr, code: check.code }).toEqual({
      stderr: `agentchart: ${message} [config]\n`,
      code: 2,
    });
    const error = await expectReplay(rootFile).catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(message);
    // Events given without their subagents' logs are refused the same way, naming the child.
    await expect(expectReplay(logs.get(sessionOf(root))!)).rejects.toThrow(
      `subagent session "${child}" (started by call p1 of session "${sessionOf(root)}") has no log`,
    );
  }, 120_000);

  it("time travel draws every seq of the parent, with a child's actors beside the parent's while it runs", async () => {
    const tree = await readRecordingTree(root);
    const { frames, note } = await computeFrames(tree.events, { subagentLogs: tree.subagents });
    expect(note).toBeUndefined();
    expect(frames.filter((frame) => frame !== undefined)).toHaveLength(tree.events.length);
    const subagentsAt = (seq: number) =>
      frames[seq]!.children.flatMap((frame) => (frame.sessionId !== undefined ? [frame.sessionId] : []));
    const seqOf = (type: string, callId: string) =>
      tree.events.findIndex((event) => event.type === type && event.data.callId === callId);
    const [child, second, third] = spawnedBy(sessionOf(root));
    // While a child runs its agent chart is in the tree; once its call has its result it is gone.
    expect(subagentsAt(seqOf('agent.spawned', 'p1'))).toEqual([child]);
    expect(frames[seqOf('agent.spawned', 'p1')]!.children.at(-1)!.id).toBe('agent');
    expect(subagentsAt(seqOf('tool.result', 'p1'))).toEqual([]);
    const sideBySide = Math.max(seqOf('agent.spawned', 'p2'), seqOf('agent.spawned', 'p3'));
    expect(subagentsAt(sideBySide).sort()).toEqual([second, third].sort());
    expect(subagentsAt(tree.events.length - 1)).toEqual([]);
  }, 120_000);
});
