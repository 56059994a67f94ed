// The inspector's board, projected from the logs of real runs: a parent whose `task` subagent waits for a
// person's approval of a write (the subagent under the call that started it, the words, tokens, cost), then
// both done and disposed; a job of three tasks, one failing, as x of N (and mid-job, with tasks not started);
// the same projection the page runs (served as its source); and a hostile log.

import { describe, expect, it } from 'vitest';
import type { ApprovalAnswer } from '../../src/actors/approval.ts';
import { pageAsset } from '../../src/inspector/assets.ts';
import {
  argumentSummary,
  type BoardView,
  clipText,
  durationText,
  projectBoard,
} from '../../src/inspector/board.ts';
import type { AgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import { taskTool } from '../../src/tools/task.ts';
import { routedModel, until } from '../support/crash-kit.ts';
import { storedLogs, useSystems } from '../support/mail-kit.ts';
import { useTempFolders } from '../support/temp-folders.ts';

const systemFor = useSystems();
const folder = useTempFolders('agentchart-board');
const prices = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const write = (id: string, path: string) => ({ id, name: 'write_file', input: { path, content: path } });
const model = routedModel({
  'Fix the tests\nin src/': [
    { toolCalls: [{ id: 't1', name: 'task', input: { description: 'Write the notes', prompt: 'notes' } }] },
    { text: 'The helper wrote them.' },
  ],
  notes: [{ toolCalls: [write('w1', 'notes.txt')] }, { text: 'notes written' }],
  'job one': [{ text: 'one done' }],
  'job two': [{ error: { kind: 'bad_request', message: 'refused' } }],
  'job three': [{ text: 'three done' }],
});

/** The logs of every live agent of the system, by id. */
const liveLogs = (system: AgentSystem) =>
  new Map<string, readonly LogEvent[]>(system.list().map((agent) => [agent.id, agent.log()]));
/** The rows as lines a person reads: indent, task, status, words, started by, turn/step, tokens, cost. */
const lines = (view: BoardView) =>
  view.rows.map((row) =>
    [
      '  '.repeat(row.depth) + row.task,
      row.status + (row.disposed ? ' (disposed)' : ''),
      row.doing,
      row.startedBy ? `${row.startedBy.tool} ${row.startedBy.callId} of ${row.parent}` : '-',
      `turn ${row.turn ?? '-'} step ${row.step ?? '-'}`,
      `${row.tokens.inputTokens}/${row.tokens.outputTokens}`,
      row.cost === undefined ? 'unknown price' : row.cost.toFixed(6),
    ].join(' | '),
  );

describe('the board projected from the logs', () => {
  it('shows a task subagent under its call, waiting for approval, then both done and disposed', async () => {
    let answer: (value: ApprovalAnswer) => void = () => {};
    let askedResolve: () => void = () => {};
    const asked = new Promise<void>((resolve) => {
      askedResolve = resolve;
    });
    const system = systemFor({
      model: { ...model, prices },
      tools: [...codingTools(), taskTool()],
      cwd: await folder('work'),
      permissionMode: 'default',
      approve: () => {
        askedResolve();
        return new Promise<ApprovalAnswer>((resolve) => {
          answer = resolve;
        });
      },
    });
    const parent = await system.createAgent({ id: 'parent' });
    const run = parent.run('Fix the tests\nin src/');
    await asked;
    const child = system.list().find((agent) => agent.id !== 'parent')!;
    await until(() => child.log().some((event) => event.type === 'approval.asked'), 'the approval logged');
    const waiting = projectBoard(liveLogs(system));
    // One request each so far (10 in, 5 out at $3 and $15 a million).
    expect(lines(waiting)).toEqual([
      'Fix the tests | running | running task Write the notes | - | turn 1 step 1 | 10/5 | 0.000105',
      `  Write the notes | waiting | waiting for your approval of write_file notes.txt | task t1 of parent | turn 1 step 1 | 10/5 | 0.000105`,
    ]);
    const askedAt = child.log().find((event) => event.type === 'approval.asked')!.ts;
    const callAt = parent.log().find((event) => event.type === 'tool.started')!.ts;
    expect(waiting.rows.map((row) => row.since)).toEqual([callAt, askedAt]);
    expect(waiting.jobs).toEqual([]);

    answer('allow');
    expect(await run).toMatchObject({ reason: 'completed', text: 'The helper wrote them.' });
    const logs = await storedLogs(system.store);
    await parent.dispose();
    const ended = projectBoard(await storedLogs(system.store));
    expect(lines(ended)).toEqual([
      'Fix the tests | done (disposed) | done: completed | - | turn 1 step 2 | 20/10 | 0.000210',
      '  Write the notes | done (disposed) | done: completed | task t1 of parent | turn 1 step 2 | 20/10 | 0.000210',
    ]);
    // The host may say an agent is disposed before its log does.
    expect(projectBoard(logs, ['parent']).rows.map((row) => row.disposed)).toEqual([true, true]);

    // The page runs the same functions, served as their source.
    const tree = `data:text/javascript,${encodeURIComponent(pageAsset('tree.js')!)}`;
    const board = pageAsset('board.js')!.replace("'./tree.js'", JSON.stringify(tree));
    const served = (await import(`data:text/javascript,${encodeURIComponent(board)}`)) as {
      projectBoard: typeof projectBoard;
    };
    expect(served.projectBoard(logs)).toEqual(projectBoard(logs));
    expect(served.projectBoard(liveLogs(system))).toEqual(projectBoard(liveLogs(system)));
  });

  it('counts a job as x of N finished, with its failure and the tasks not started yet', async () => {
    const system = systemFor({ model, tools: [] });
    const job = system.runJob({
      tasks: [{ prompt: 'job one' }, { prompt: 'job two' }, { prompt: 'job three' }],
      concurrency: 1,
    });
    expect((await job.result).map((result) => result.reason)).toEqual([
      'completed',
      'model_error',
      'completed',
    ]);
    const logs = await storedLogs(system.store);
    const view = projectBoard(logs);
    expect(view.jobs).toEqual([{ id: 'job-1', tasks: 3, finished: 3, failed: 1, running: 0, notStarted: 0 }]);
    expect(view.rows.map((row) => [row.task, row.status, row.doing, row.disposed, row.job])).toEqual([
      ['job one', 'done', 'done: completed', true, { id: 'job-1', index: 0, tasks: 3 }],
      ['job two', 'failed', 'failed: model_error', true, { id: 'job-1', index: 1, tasks: 3 }],
      ['job three', 'done', 'done: completed', true, { id: 'job-1', index: 2, tasks: 3 }],
    ]);
    // Mid-job, as the first task's log alone shows it: the other two not started.
    const first = view.rows[0]!.id;
    expect(projectBoard(new Map([[first, logs.get(first)!]])).jobs).toEqual([
      { id: 'job-1', tasks: 3, finished: 1, failed: 0, running: 0, notStarted: 2 },
    ]);
    // A second job of the same system is another job.
    const again = system.runJob({ tasks: [{ prompt: 'job one' }], concurrency: 1 });
    await again.result;
    const jobs = projectBoard(await storedLogs(system.store)).jobs;
    expect(jobs.map((one) => `${one.id} ${one.finished}/${one.tasks}`)).toEqual(['job-1 3/3', 'job-2 1/1']);
  });

  it('shows a hostile log on one line, clipped, with no control character and no non-finite number', () => {
    const long = `rm -rf /tmp/x\u0007\u001b[31m${'a'.repeat(500)}\nsecond line`;
    const event = (seq: number, type: string, data: Record<string, unknown>, ts = 1_000 + seq) =>
      ({ v: 1, seq, ts, type, turn: 1, step: 1, data }) as LogEvent;
    const hostile: LogEvent[] = [
      event(0, 'session.start', {
        agentId: 'h',
        config: {
          model: 'm\u0000odel',
          prices: { input: Number.NaN, output: 1, cacheRead: 1, cacheWrite: 1 },
          job: { id: 'j', index: Number.POSITIVE_INFINITY, tasks: 2 },
        },
      }),
      event(1, 'user.message', { channel: 'followup', content: `\u0000task ${'b'.repeat(300)}\nmore` }),
      { ...event(2, 'turn.start', {}), turn: Number.NaN },
      event(3, 'step.start', { model: 'm', toolNames: [], systemHash: '' }),
      event(4, 'assistant.message', {
        usage: {
          inputTokens: Number.POSITIVE_INFINITY,
          outputTokens: -5,
          cacheReadTokens: '7',
          cacheWriteTokens: 2,
        },
      }),
      event(5, 'tool.call', { callId: 'c1', name: 'bash', input: { command: long } }),
      event(6, 'tool.started', { callId: 'c1' }, Number.POSITIVE_INFINITY),
    ];
    const [row] = projectBoard(new Map([['h', hostile]])).rows;
    expect(row).toMatchObject({ status: 'running', model: 'm\\u0000odel', step: 1 });
    expect(row!.turn).toBeUndefined();
    expect(row!.task).toBe(`\\u0000task ${'b'.repeat(108)}…`);
    expect(row!.doing).toBe(`running bash \`rm -rf /tmp/x\\u0007\\u001b[31m${'a'.repeat(50)}…\``);
    expect(row!.tokens).toEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 2 });
    expect(row!.cost).toBeUndefined();
    expect(row!.job).toBeUndefined();
    expect(row!.since).toBeUndefined();
    expect(row!.lastAt).toBe(1_005);
    // A call waiting for approval since a time no clock gives: waiting, since unknown.
    const asked = [
      ...hostile.slice(0, 4),
      event(5, 'tool.call', { callId: 'c2', name: 'write_file', input: { path: 'a.ts\u0000' } }),
      event(6, 'approval.asked', { callId: 'c2' }, Number.NaN),
    ];
    const [waiting] = projectBoard(new Map([['h', asked]])).rows;
    expect([waiting!.status, waiting!.doing, waiting!.since]).toEqual([
      'waiting',
      'waiting for your approval of write_file a.ts\\u0000',
      undefined,
    ]);
    expect(argumentSummary({ weird: 42, label: 'first\nsecond' })).toBe('first');
    expect(argumentSummary(null)).toBe('');
    expect(clipText('a\u2028b\tc', 20)).toBe('a\\u2028b\\u0009c');
    expect([0, 12_400, 184_000, 7_500_000, Number.NaN, -1, undefined].map((ms) => durationText(ms))).toEqual([
      '0 s',
      '12 s',
      '3 min 4 s',
      '2 h 5 min',
      '',
      '',
      '',
    ]);
  });
});
