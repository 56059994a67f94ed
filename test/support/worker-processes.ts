// Worker processes for the distributed-job tests (test/fixtures/scale/worker.ts), what their work tool
// recorded, and the log checks the tests share.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { isEvent, type LogEvent } from '../../src/session/types.ts';
import { type RunningChild, startScript } from './child-run.ts';
import type { SuiteServers } from './servers.ts';

const children: RunningChild[] = [];

/**
 * What a worker process is started with: the suite's Redis, the database at `url`, three tasks at a time on
 * a model that takes 30 ms, and the queue, tool time and record file the suite chooses.
 */
export const workerSettings = (
  servers: SuiteServers,
  url: string,
  choice: { queue: string; toolMs: number; record: string },
) => ({ redis: servers.redis.url, postgres: url, concurrency: 3, modelMs: 30, ...choice });

/** Starts a worker process and resolves once it takes jobs. */
export function startWorkerProcess(settings: Record<string, unknown>): Promise<RunningChild> {
  return new Promise((resolve, reject) => {
    const child = startScript('test/fixtures/scale/worker.ts', {
      args: [JSON.stringify(settings)],
      timeoutMs: 120_000,
      onStdout: (out) => {
        if (out.includes('ready')) resolve(child);
      },
    });
    children.push(child);
    void child.done.then((run) => reject(new Error(`worker exited before it was ready: ${run.stderr}`)));
  });
}

export type Execution = { what: 'start' | 'end'; task: string; n: number; callId: string; pid: number };

export async function executions(file: string): Promise<Execution[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [what, task, n, callId, pid] = line.split(' ');
      return {
        what: what as Execution['what'],
        task: task!,
        n: Number(n),
        callId: callId!,
        pid: Number(pid),
      };
    });
}

/** Every `tool.call` has exactly one `tool.result`, after it; returns the results by call id. */
export function toolResults(
  events: readonly LogEvent[],
): Map<string, { outcome: string; turn: number | undefined; seq: number }> {
  const results = new Map<string, { outcome: string; turn: number | undefined; seq: number }>();
  const calls = new Set<string>();
  for (const event of events) {
    if (isEvent(event, 'tool.call')) calls.add(event.data.callId);
    if (isEvent(event, 'tool.result')) {
      expect(calls.has(event.data.callId)).toBe(true);
      expect(results.has(event.data.callId)).toBe(false);
      results.set(event.data.callId, { outcome: event.data.outcome, turn: event.turn, seq: event.seq });
    }
  }
  expect([...calls].sort()).toEqual([...results.keys()].sort());
  return results;
}

/** Kills every worker process the tests started that is still running. */
export async function killWorkerProcesses(): Promise<void> {
  for (const child of children.splice(0)) {
    child.kill('SIGKILL');
    await child.done.catch(() => undefined);
  }
}

/**
 * Registers, in the calling `describe`, the file where the workers' tool records what it runs (`record`, in
 * a fresh folder) and, at the end, the kill of every worker process before that folder is removed.
 */
export function useWorkerRecord(prefix: string): { file: string } {
  const record = { file: '' };
  let folder = '';
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), `${prefix}-`));
    record.file = join(folder, 'record');
  });
  afterAll(async () => {
    await killWorkerProcesses();
    await rm(folder, { recursive: true, force: true });
  }, 30_000);
  return record;
}
