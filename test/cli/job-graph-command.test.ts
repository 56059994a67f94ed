// `agentchart job` with a task graph: the graph is printed before the job starts and with each task's end
// after it; each line names the task; a run of the same file twice gets fresh sessions; an unknown
// dependency or a cycle in the file is a usage error (exit 2) before anything runs.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli/cli-error.ts';
import { jobCommand } from '../../src/cli/commands/job.ts';
import { useGraphSystems } from '../support/job-graph-kit.ts';

const graphSystem = useGraphSystems((head) => `did ${head}`);
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

function capture() {
  let stdout = '';
  const io = {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: () => true },
    stdin: new PassThrough(),
    env: {},
    cwd: '/',
  };
  return { io, out: () => stdout };
}

async function jobFile(content: unknown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agentchart-job-graph-'));
  dirs.push(dir);
  const file = join(dir, 'job.json');
  await writeFile(file, JSON.stringify(content));
  return file;
}

const graph = {
  concurrency: 1,
  tasks: [
    { id: 'lint', prompt: 'lint' },
    { id: 'test', prompt: 'test' },
    { id: 'release', prompt: 'release', dependsOn: ['lint', 'test'] },
    { id: 'broken', prompt: 'fail' },
    { id: 'notes', prompt: 'notes', dependsOn: ['broken'] },
  ],
};

describe('agentchart job with a task graph', () => {
  it('prints the graph, each task by name as it ends, and how the graph ended', async () => {
    const file = await jobFile(graph);
    const system = graphSystem();
    const { io, out } = capture();
    expect(await jobCommand(file, { io, system })).toBe(1);
    const lines = out()
      .replace(/session (\w+)-[0-9a-f]{8}/g, 'session $1-TAG')
      .replace(/"(\w+)-[0-9a-f]{8}"/g, '"$1-TAG"')
      .split('\n');
    expect(lines).toEqual([
      `agentchart: job ${file}: 5 task(s), 1 at a time`,
      'agentchart: the task graph (a task ← what it waits for):',
      '  lint',
      '  test',
      '  release ← lint, test',
      '  broken',
      '  notes ← broken',
      '[1/5] task 0 (lint) completed · session lint-TAG · did lint · 2 waiting',
      '[2/5] task 1 (test) completed · session test-TAG · did test · 1 waiting',
      '[3/5] task 2 (release) completed · session release-TAG · did release · 1 waiting',
      '[4/5] task 3 (broken) model_error · session broken-TAG · refused fail',
      '[5/5] task 4 (notes) dependency_failed · its dependency "broken-TAG" ended model_error: refused fail',
      'agentchart: how the graph ended:',
      '  ✓ lint: completed',
      '  ✓ test: completed',
      '  ✓ release ← lint, test: completed',
      '  ✗ broken: model_error (refused fail)',
      '  ✗ notes ← broken: dependency_failed (its dependency "broken-TAG" ended model_error: refused fail)',
      'agentchart: 5 task(s): 3 completed, 1 model_error, 1 dependency_failed · 30 input / 15 output tokens',
      '',
    ]);
    // The same file again runs in fresh sessions.
    expect(await jobCommand(file, { io: capture().io, system })).toBe(1);
    expect((await system.store.list()).length).toBe(8);
  });

  it('refuses an unknown dependency or a cycle before anything runs (exit 2)', async () => {
    const system = graphSystem();
    for (const [tasks, message] of [
      [[{ id: 'a', prompt: 'a', dependsOn: ['b'] }], /tasks\[0\]\.dependsOn\[0\] is "b", which no task/],
      [
        [
          { id: 'a', prompt: 'a', dependsOn: ['b'] },
          { id: 'b', prompt: 'b', dependsOn: ['a'] },
        ],
        /dependencies form a cycle: "a" → "b" → "a"/,
      ],
    ] as const) {
      const file = await jobFile({ tasks });
      const failure = await jobCommand(file, { io: capture().io, system }).catch((error: unknown) => error);
      expect([CliError.isInstance(failure), (failure as CliError).exitCode]).toEqual([true, 2]);
      expect((failure as Error).message).toMatch(message);
    }
    expect(await system.store.list()).toEqual([]);
  });
});
