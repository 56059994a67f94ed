// Job tasks under supervision: a task whose turn fails `model_error` is restarted from its own log after its
// backoff on the system's clock (`task.restarted` in the job's progress, `session.restarted` in the task's
// log) and its completed calls are not run again; a task without a policy reports its failure as before;
// a cancel during the backoff ends the task `canceled`; a bad policy is refused when the job is started.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/config-error.ts';
import type { ScriptStep } from '../../src/providers/scripted.ts';
import type { JobProgress } from '../../src/runtime/jobs/run-job.ts';
import { routedModel, until } from '../support/crash-kit.ts';
import { call, countingTool, TickingSimulatedClock, useSystems } from '../support/mail-kit.ts';

const systemFor = useSystems();
const failing: ScriptStep = { error: { kind: 'bad_request', message: 'refused' } };

function jobSystem(scripts: Record<string, ScriptStep[]>) {
  const clock = new TickingSimulatedClock(1_000);
  const asked = new Map<string, number>();
  const routes = Object.fromEntries(
    Object.entries(scripts).map(([prompt, steps]) => [
      prompt,
      () => {
        const n = asked.get(prompt) ?? 0;
        asked.set(prompt, n + 1);
        return steps[n] ?? { text: 'no more script' };
      },
    ]),
  );
  const { tool: note, runs } = countingTool();
  const system = systemFor({ model: routedModel(routes), tools: [note], clock });
  return { system, clock, runs };
}

describe('supervised job tasks', () => {
  it('a task that fails once is restarted from its log; one without a policy fails as before', async () => {
    const { system, clock, runs } = jobSystem({
      flaky: [{ toolCalls: [call('note', { value: 'x' })] }, failing, { text: 'Flaky done.' }],
      plain: [failing],
    });
    const progress: JobProgress[] = [];
    const job = system.runJob({
      tasks: [
        {
          prompt: 'flaky',
          id: 'flaky',
          supervision: { restart: 'on-failure', maxRestarts: 2, backoffMs: 300 },
        },
        { prompt: 'plain', id: 'plain' },
      ],
      concurrency: 2,
      onProgress: (event) => progress.push(event),
    });
    await until(() => progress.some((event) => event.type === 'task.restarted'), 'the task is restarted');
    clock.advance(300);
    const [flaky, plain] = await job.result;
    expect(flaky).toMatchObject({ reason: 'completed', text: 'Flaky done.', restarts: 1 });
    expect(plain).toMatchObject({ reason: 'model_error', error: 'refused' });
    expect(plain).not.toHaveProperty('restarts');
    expect(runs).toEqual(['x']);
    expect(progress.filter((event) => event.type === 'task.restarted')).toEqual([
      {
        type: 'task.restarted',
        index: 0,
        sessionId: 'flaky',
        attempt: 1,
        reason: 'model_error',
        error: 'refused',
        backoffMs: 300,
        running: expect.any(Number),
        finished: expect.any(Number),
        total: 2,
        waiting: 0,
      },
    ]);
    const log = (await system.store.load('flaky')).events;
    expect(log.filter((event) => event.type === 'session.restarted').map((event) => event.data)).toEqual([
      { attempt: 1, reason: 'model_error', error: 'refused' },
    ]);
    expect(log.filter((event) => event.type === 'turn.end').map((event) => event.data.reason)).toEqual([
      'model_error',
      'completed',
    ]);
  });

  it('the job-wide policy applies to every task; a cancel during the backoff ends the task canceled', async () => {
    const { system, clock } = jobSystem({ a: [failing, { text: 'never' }] });
    const progress: JobProgress[] = [];
    const job = system.runJob({
      tasks: [{ prompt: 'a' }],
      concurrency: 1,
      supervision: { restart: 'on-failure', backoffMs: 10_000 },
      onProgress: (event) => progress.push(event),
    });
    await until(() => progress.some((event) => event.type === 'task.restarted'), 'the task is restarted');
    job.cancel(0);
    const [result] = await job.result;
    expect(result).toMatchObject({ reason: 'canceled', restarts: 1 });
    expect(clock.pendingTimers).toBe(0);
    const log = (await system.store.load(result!.sessionId!)).events;
    expect(log.some((event) => event.type === 'session.restarted')).toBe(false);
  });

  it('a bad policy is refused when the job starts, naming it (with the nearest known key)', () => {
    const { system } = jobSystem({});
    const start = (supervision: unknown) =>
      system.runJob({ tasks: [{ prompt: 'a', supervision } as never], concurrency: 1 });
    expect(() => start({ restart: 'sometimes' })).toThrow(ConfigError);
    expect(() => start({ restart: 'sometimes' })).toThrow(
      /tasks\[0\]\.supervision\.restart must be one of "never", "on-failure"/,
    );
    expect(() => start({ restart: 'on-failure', maxRestarts: -1 })).toThrow(
      /maxRestarts must be a whole number/,
    );
    expect(() => start({ restart: 'on-failure', backoffMs: Number.NaN })).toThrow(
      /backoffMs must be a whole number of milliseconds/,
    );
    expect(() => start({ restart: 'on-failure', maxRestart: 2 })).toThrow(/maxRestarts/);
  });
});
