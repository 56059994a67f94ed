// Jobs as task graphs (`dependsOn`), in process: a 20-task graph with a diamond, a typed dependency and a
// failure — each task starts only once its dependencies have ended and reads their results in its prompt;
// the failure's dependents (and theirs) end `dependency_failed` naming it without running; everything else
// completes. Bad graphs (unknown id, self, repeat, duplicate ids, a cycle) are refused before anything
// starts; `onDependencyFailure: 'run'` and a host's `dependencyPrompt` change what a dependent does.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from '../../src/errors/config-error.ts';
import type { JobProgress, JobTask } from '../../src/runtime/jobs/run-job.ts';
import { useGraphSystems } from '../support/job-graph-kit.ts';

/** Each task answers `done <its first line>` (`count` answers typed JSON); `fail…` is refused. */
const graphSystem = useGraphSystems((head) => (head === 'count' ? '{"files":3}' : `done ${head}`));

const task = (id: string, dependsOn: string[] = [], prompt = id): JobTask => ({
  id,
  prompt,
  ...(dependsOn.length > 0 ? { dependsOn } : {}),
});

describe('task graphs', () => {
  it('runs 20 tasks in dependency order: a diamond, a typed dependency, a failure and its dependents', async () => {
    const prompts: string[] = [];
    const system = graphSystem(prompts);
    const counted = { ...task('counter', [], 'count'), output: z.object({ files: z.number() }) };
    const tasks: JobTask[] = [
      task('top'),
      task('left', ['top']),
      task('right', ['top']),
      task('bottom', ['left', 'right']),
      counted,
      task('reader', ['counter']),
      task('broken', [], 'fail here'),
      task('after-broken', ['broken']),
      task('after-after', ['after-broken', 'top']),
      ...Array.from({ length: 11 }, (_, index) => task(`free-${index}`)),
    ];
    expect(tasks).toHaveLength(20);
    const progress: JobProgress[] = [];
    const job = system.runJob({ tasks, concurrency: 3, onProgress: (p) => progress.push(p) });
    const results = await job.result;

    const byId = new Map(results.map((result) => [tasks[result.index]!.id!, result]));
    const failedOnes = ['broken', 'after-broken', 'after-after'];
    for (const [id, result] of byId)
      if (!failedOnes.includes(id)) expect([id, result.reason]).toEqual([id, 'completed']);
    expect(byId.get('broken')).toMatchObject({ reason: 'model_error', error: 'refused fail here' });
    expect(byId.get('after-broken')).toMatchObject({
      reason: 'dependency_failed',
      sessionId: undefined,
      error: 'its dependency "broken" ended model_error: refused fail here',
    });
    expect(byId.get('after-after')).toMatchObject({
      reason: 'dependency_failed',
      error: expect.stringMatching(/^its dependency "after-broken" ended dependency_failed: /),
    });

    // A task starts only after every task it depends on has finished.
    const at = (type: JobProgress['type'], id: string) =>
      progress.findIndex((p) => p.type === type && tasks[p.index]!.id === id);
    for (const [id, after] of [
      ['left', ['top']],
      ['right', ['top']],
      ['bottom', ['left', 'right']],
      ['reader', ['counter']],
    ] as const)
      for (const dependency of after)
        expect(at('task.started', id)).toBeGreaterThan(at('task.finished', dependency));
    // The tasks that never ran were never started; `waiting` counted those held back, and ends at 0.
    expect(failedOnes.slice(1).map((id) => at('task.started', id))).toEqual([-1, -1]);
    expect(progress[0]).toMatchObject({ waiting: 6 });
    expect(progress.at(-1)).toMatchObject({ type: 'task.finished', finished: 20, waiting: 0 });

    // Dependents read their dependencies' results: the text, a typed one's output as JSON.
    const bottom = prompts.find((prompt) => prompt.startsWith('bottom\n'));
    expect(bottom).toBe(
      'bottom\n\nThe tasks this task depends on have ended. Their results:\n\n' +
        '<dependency id="left" reason="completed">\ndone left\n</dependency>\n\n' +
        '<dependency id="right" reason="completed">\ndone right\n</dependency>',
    );
    expect(byId.get('counter')?.output).toEqual({ files: 3 });
    expect(prompts.find((prompt) => prompt.startsWith('reader\n'))).toContain(
      '<dependency id="counter" reason="completed">\n{"files":3}\n</dependency>',
    );
  });

  it('refuses a graph it cannot run before anything starts', () => {
    const system = graphSystem();
    const refused = (tasks: JobTask[]) => {
      try {
        system.runJob({ tasks, concurrency: 2 });
      } catch (error) {
        expect(ConfigError.isInstance(error)).toBe(true);
        return (error as Error).message;
      }
      throw new Error('the job was accepted');
    };
    expect(refused([task('a', ['nobody'])])).toBe(
      'runJob: tasks[0].dependsOn[0] is "nobody", which no task of the job has as its id',
    );
    expect(refused([task('a', ['a'])])).toBe('runJob: tasks[0].dependsOn[0] is the task itself ("a")');
    expect(refused([task('a'), task('b', ['a', 'a'])])).toBe('runJob: tasks[1].dependsOn[1] repeats "a"');
    expect(refused([task('a'), task('a')])).toBe('runJob: tasks[0] and tasks[1] have the same id "a"');
    expect(refused([task('a', ['c']), task('b', ['a']), task('c', ['b']), task('d')])).toBe(
      'runJob: the tasks\' dependencies form a cycle: "a" → "c" → "b" → "a"',
    );
    expect(() =>
      system.runJob({ tasks: [{ prompt: 'x', dependsOn: 'a' as never }], concurrency: 1 }),
    ).toThrow(/runJob: tasks\[0\]\.dependsOn must be an array of task ids/);
    expect(system.list()).toEqual([]);
  });

  it("runs a failed task's dependents with onDependencyFailure: 'run', and takes the host's prompt", async () => {
    const prompts: string[] = [];
    const system = graphSystem(prompts);
    const job = system.runJob({
      tasks: [task('broken', [], 'fail now'), task('next', ['broken'])],
      concurrency: 2,
      onDependencyFailure: 'run',
      dependencyPrompt: (dependent, dependencies) =>
        `${dependent.prompt}\nafter: ${dependencies.map(({ id, result }) => `${id}=${result.reason}`).join(',')}`,
    });
    const [broken, next] = await job.result;
    expect([broken?.reason, next?.reason, next?.text]).toEqual(['model_error', 'completed', 'done next']);
    expect(prompts.filter((prompt) => prompt.startsWith('next'))).toEqual([
      'next\nafter: broken=model_error',
    ]);

    // A host's mapping that throws fails that task alone.
    const throwing = graphSystem().runJob({
      tasks: [task('a'), task('b', ['a'])],
      concurrency: 1,
      dependencyPrompt: () => {
        throw new Error('no mapping');
      },
    });
    expect((await throwing.result).map((result) => [result.reason, result.error])).toEqual([
      ['completed', undefined],
      ['failed', 'dependencyPrompt threw: no mapping'],
    ]);
  });
});
