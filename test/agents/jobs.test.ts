import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CliError } from '../../src/cli/cli-error.ts';
import { jobCommand } from '../../src/cli/commands/job.ts';
import { ConfigError } from '../../src/errors/config-error.ts';
import { scripted } from '../../src/providers/scripted.ts';
import type { ModelEvent, ModelRequest, Provider } from '../../src/providers/types.ts';
import type { AgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { Job, JobProgress } from '../../src/runtime/jobs/run-job.ts';
import type { AgentSystemOptions } from '../../src/runtime/options.ts';
import { defineTool } from '../../src/tools/define-tool.ts';
import { echoTool, firstUser, routedModel, stepIndex, tickingClock, until } from '../support/crash-kit.ts';
import { useSystems } from '../support/mail-kit.ts';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const systemFor = useSystems(tickingClock);
function makeSystem(options: Partial<AgentSystemOptions> = {}): AgentSystem {
  const model = routedModel({}, (request) => ({ text: `done ${firstUser(request)}` }));
  return systemFor({ model, tools: [echoTool], ...options });
}

/** A model that never answers on its own: it waits (abortably) until the request is cancelled. */
const silentModel = (onRequest?: (request: ModelRequest) => void): Provider => {
  const inner = scripted(new Array(1_000).fill({ delayMs: 1e9, text: 'never' }), { clock: tickingClock() });
  return {
    name: 'silent',
    model: 'silent',
    stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      onRequest?.(request);
      return inner.stream(request, signal);
    },
  };
};

describe('runJob', () => {
  it('runs 200 tasks with at most 8 agents alive; a failing and a cancelled task leave the rest intact', async () => {
    let maxAlive = 0;
    let arrived = 0;
    let openBarrier: () => void = () => {};
    const barrier = new Promise<void>((resolve) => (openBarrier = resolve));
    const routed = routedModel({}, (request) => ({ text: `done ${firstUser(request)}` }));
    let system: AgentSystem | undefined;
    // Counts live agents at every model request; the first 8 requests wait until all 8 arrived, which
    // proves 8 agents were alive at once without relying on timing.
    const counting: Provider = {
      name: 'counting',
      model: 'counting',
      async *stream(request, signal) {
        maxAlive = Math.max(maxAlive, system!.list().length);
        if (++arrived <= 8) {
          if (arrived === 8) openBarrier();
          await barrier;
        }
        yield* routed.stream(request, signal);
      },
    };
    system = makeSystem({ model: counting });
    const progress: JobProgress[] = [];
    let job: Job | undefined;
    const tasks = Array.from({ length: 200 }, (_, index) => ({ prompt: `task ${index}` }));
    Object.assign(tasks[17]!, { model: scripted([{ error: { kind: 'auth', message: 'bad key' } }]) });
    Object.assign(tasks[42]!, { model: silentModel(() => job!.cancel(42)) });
    job = system.runJob({
      tasks,
      concurrency: 8,
      onProgress: (event) => {
        progress.push(event);
        maxAlive = Math.max(maxAlive, system!.list().length);
      },
    });
    const results = await job.result;

    expect(maxAlive).toBe(8);
    expect(results.map((r) => r.index)).toEqual(tasks.map((_, index) => index));
    expect(results.filter((r) => r.reason !== 'completed').map((r) => [r.index, r.reason, r.error])).toEqual([
      [17, 'model_error', 'bad key'],
      [42, 'canceled', undefined],
    ]);
    for (const result of results.filter((r) => r.reason === 'completed')) {
      expect(result.text).toBe(`done task ${result.index}`);
      expect(result.usage).toMatchObject({ inputTokens: 10, outputTokens: 5 });
    }
    expect(new Set(results.map((r) => r.sessionId)).size).toBe(200);
    expect(progress.filter((p) => p.type === 'task.started')).toHaveLength(200);
    expect(progress.filter((p) => p.type === 'task.finished')).toHaveLength(200);
    expect(Math.max(...progress.map((p) => p.running))).toBe(8);
    expect(progress.at(-1)).toMatchObject({ type: 'task.finished', running: 0, finished: 200, total: 200 });
    expect(system.list()).toEqual([]);
    const ended = await Promise.all(
      results.map(async (r) => (await system!.store.load(r.sessionId!)).events.at(-1)?.type),
    );
    expect(new Set(ended)).toEqual(new Set(['session.end']));
  });

  it('cancels every running and waiting task; the system stays usable', async () => {
    const requests: string[] = [];
    const system = makeSystem({ model: silentModel((request) => requests.push(firstUser(request))) });
    const job = system.runJob({
      tasks: Array.from({ length: 12 }, (_, i) => ({ prompt: `t${i}` })),
      concurrency: 3,
    });
    await until(() => requests.length === 3, 'three running tasks');
    job.cancel();
    const results = await job.result;
    expect(results.map((r) => [r.reason, r.sessionId !== undefined])).toEqual([
      ...Array(3).fill(['canceled', true]),
      ...Array(9).fill(['canceled', false]),
    ]);
    // Exactly the three running tasks reached the model (in whatever order their agents got there).
    expect([...requests].sort()).toEqual(['t0', 't1', 't2']);
    expect(system.list()).toEqual([]);
    const next = await system.runJob({
      tasks: [{ prompt: 'again', model: makeSystemModel() }],
      concurrency: 1,
    }).result;
    expect(next[0]).toMatchObject({ reason: 'completed', text: 'done again' });
  });

  it('reports a task whose agent cannot be created as failed, and honours an aborted signal', async () => {
    const system = makeSystem();
    // A live agent already owns session "taken", so task 1's agent cannot be created.
    const owner = await system.createAgent({ id: 'taken' });
    const results = await system.runJob({
      tasks: [{ prompt: 'a' }, { prompt: 'b', id: 'taken' }, { prompt: 'c' }],
      concurrency: 2,
    }).result;
    await owner.dispose();
    expect(results.map((r) => [r.index, r.reason, r.error ?? r.text])).toEqual([
      [0, 'completed', 'done a'],
      [1, 'failed', 'agent "taken" is already live in this system (one live owner per session)'],
      [2, 'completed', 'done c'],
    ]);
    const aborted = await system.runJob({
      tasks: [{ prompt: 'x' }],
      concurrency: 1,
      signal: AbortSignal.abort(),
    }).result;
    expect(aborted).toEqual([
      { index: 0, sessionId: undefined, reason: 'canceled', text: '', usage: expect.any(Object), denied: [] },
    ]);
  });

  it('rejects with the error of a throwing progress callback after cancelling and disposing', async () => {
    const system = makeSystem({ model: silentModel() });
    const job = system.runJob({
      tasks: [{ prompt: 'a' }, { prompt: 'b' }],
      concurrency: 2,
      onProgress: () => {
        throw new Error('progress broke');
      },
    });
    await expect(job.result).rejects.toThrow('progress broke');
    expect(system.list()).toEqual([]);
    expect(() => system.runJob({ tasks: [], concurrency: 0 })).toThrow(ConfigError);
    expect(() => system.runJob({ tasks: [{ prompt: '' }], concurrency: 1 })).toThrow(
      'runJob: tasks[0].prompt must be a non-empty string, got ""',
    );
    expect(() => job.cancel(5)).toThrow(ConfigError);
  });
});

function makeSystemModel(): Provider {
  return routedModel({}, (request) => ({ text: `done ${firstUser(request)}` }));
}

describe('jobCommand (agentchart job FILE.json)', () => {
  function capture() {
    let stdout = '';
    let stderr = '';
    const io = {
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      stdin: new PassThrough(),
      env: {},
      cwd: '/',
    };
    return { io, out: () => stdout, err: () => stderr };
  }

  async function jobFile(content: unknown): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'agentchart-job-'));
    dirs.push(dir);
    const file = join(dir, 'job.json');
    await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  }

  it('runs the file, prints a line per task and a summary, exit code 0', async () => {
    const file = await jobFile({
      tasks: [{ prompt: 'one' }, { prompt: 'two', instructions: 'Be brief.' }],
      concurrency: 1,
    });
    const { io, out } = capture();
    const code = await jobCommand(file, { io, system: makeSystem() });
    expect(code).toBe(0);
    expect(out().split('\n')).toEqual([
      `agentchart: job ${file}: 2 task(s), 1 at a time`,
      '[1/2] task 0 completed · session id1 · done one',
      '[2/2] task 1 completed · session id4 · done two',
      'agentchart: 2 task(s): 2 completed · 20 input / 10 output tokens',
      '',
    ]);
  });

  it('shows the calls a task had denied in its line, its result and the summary', async () => {
    const file = await jobFile({ tasks: [{ prompt: 'one' }, { prompt: 'two' }], concurrency: 1 });
    const { io, out } = capture();
    // Every task tries to deploy, which asks in default mode; nobody answers: approve: 'deny'.
    const deploy = defineTool({
      name: 'deploy',
      description: 'Deploy the site.',
      access: 'exec',
      input: z.object({}),
      run: async () => 'deployed',
    });
    const model = routedModel({}, (request) =>
      stepIndex(request) === 0
        ? { toolCalls: [{ id: `d-${firstUser(request)}`, name: 'deploy', input: {} }] }
        : { text: 'could not deploy' },
    );
    const system = makeSystem({ model, tools: [deploy], permissionMode: 'default', approve: 'deny' });
    expect(await jobCommand(file, { io, system, json: true })).toBe(0);
    const reason =
      'exec access needs approval in default mode; nobody can approve it in this session (headless), so it was denied';
    const results = out()
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text));
    expect(results.map((result) => [result.reason, result.denied])).toEqual(
      ['one', 'two'].map((task) => [
        'completed',
        [{ callId: `d-${task}`, tool: 'deploy', input: {}, by: 'headless', reason }],
      ]),
    );
    const { io: plain, err } = capture();
    await jobCommand(file, { io: plain, system, json: true });
    expect(err().split('\n').slice(1)).toEqual([
      '[1/2] task 0 completed · session id7 · 1 call denied (deploy) · could not deploy',
      '[2/2] task 1 completed · session id10 · 1 call denied (deploy) · could not deploy',
      'agentchart: 2 task(s): 2 completed · 2 calls denied (deploy ×2) in 2 task(s) · 40 input / 20 output tokens',
      '',
    ]);
  });

  it('exits 130 when the job was cancelled (Ctrl-C), as run does', async () => {
    const file = await jobFile({ tasks: [{ prompt: 'one' }] });
    const { io, out } = capture();
    const cancel = new AbortController();
    cancel.abort();
    expect(await jobCommand(file, { io, system: makeSystem(), signal: cancel.signal })).toBe(130);
    expect(out()).toMatch(/task 0 (canceled|failed)/);
  });

  it('writes NDJSON results under --json and exits 1 when a task did not complete', async () => {
    const file = await jobFile({ tasks: [{ prompt: 'one' }, { prompt: 'two' }] });
    const { io, out, err } = capture();
    const model = routedModel({
      one: [{ text: 'fine' }],
      two: [{ error: { kind: 'auth', message: 'no key' } }],
    });
    const code = await jobCommand(file, { io, system: makeSystem({ model }), json: true });
    expect(code).toBe(1);
    const lines = out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((r) => [r.index, r.reason])).toEqual([
      [0, 'completed'],
      [1, 'model_error'],
    ]);
    expect(err()).toContain('agentchart: 2 task(s): 1 completed, 1 model_error');
  });

  it('refuses a malformed job file with a CliError, exit code 2', async () => {
    const { io } = capture();
    const system = makeSystem();
    for (const content of [
      '{not json',
      { tasks: [] },
      { tasks: [{ promt: 'typo' }] },
      { tasks: [{ prompt: 'x' }], concurrency: 0 },
    ]) {
      const file = await jobFile(content);
      const failure = await jobCommand(file, { io, system }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(CliError);
      expect((failure as CliError).exitCode).toBe(2);
    }
    await expect(jobCommand('/nonexistent/job.json', { io, system })).rejects.toThrow(
      /^no such file: \/nonexistent\/job.json; give the path of a job file/,
    );
  });
});
