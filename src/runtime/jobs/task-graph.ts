// The dependency graph of a job's tasks (`tasks[i].dependsOn: [ids]`), checked before anything starts: every
// id a task depends on names another task of the job, and no task depends on itself through others. Pure:
// the runner asks it which tasks may start and which a failed dependency stops.
import { ConfigError } from '../../errors/config-error.ts';

/** What the graph needs of a task: its id, and the ids of the tasks it waits for. */
export type GraphTask = { id?: string | undefined; dependsOn?: readonly string[] | undefined };

/** The checked graph, by task index: what each task waits for, and who waits for it. */
export type TaskGraph = {
  readonly dependencies: readonly (readonly number[])[];
  readonly dependents: readonly (readonly number[])[];
};

/**
 * Checks `tasks`' dependencies and returns them by index. A `ConfigError` naming the task (as
 * `<call>: tasks[2].dependsOn ...`) when a dependency names no task of the job, repeats, or is the task
 * itself; when two tasks have the same id; and when dependencies form a cycle (the cycle is named).
 */
export function taskGraph(call: string, tasks: readonly GraphTask[]): TaskGraph {
  const byId = new Map<string, number>();
  for (const [index, task] of tasks.entries()) {
    if (task.id === undefined) continue;
    const other = byId.get(task.id);
    if (other !== undefined)
      throw new ConfigError(`${call}: tasks[${other}] and tasks[${index}] have the same id "${task.id}"`);
    byId.set(task.id, index);
  }
  const dependencies = tasks.map((task, index) => {
    const ids = task.dependsOn ?? [];
    return ids.map((id, at) => {
      const where = `${call}: tasks[${index}].dependsOn[${at}]`;
      const found = byId.get(id);
      if (found === undefined)
        throw new ConfigError(`${where} is "${id}", which no task of the job has as its id`);
      if (found === index) throw new ConfigError(`${where} is the task itself ("${id}")`);
      if (ids.indexOf(id) !== at) throw new ConfigError(`${where} repeats "${id}"`);
      return found;
    });
  });
  const dependents = tasks.map(() => [] as number[]);
  for (const [index, waits] of dependencies.entries()) for (const on of waits) dependents[on]!.push(index);
  const cycle = findCycle(dependencies);
  if (cycle)
    throw new ConfigError(
      `${call}: the tasks' dependencies form a cycle: ${cycle.map((index) => nameOf(tasks, index)).join(' → ')}`,
    );
  return { dependencies, dependents };
}

function nameOf(tasks: readonly GraphTask[], index: number): string {
  const id = tasks[index]?.id;
  return id !== undefined ? `"${id}"` : `tasks[${index}]`;
}

/** A cycle of `dependencies` as the indices along it (the first repeated at the end), if there is one. */
function findCycle(dependencies: readonly (readonly number[])[]): number[] | undefined {
  // Iterative depth-first search (a job may have thousands of tasks): 0 unseen, 1 on the path, 2 done.
  const mark = dependencies.map(() => 0);
  for (let root = 0; root < dependencies.length; root++) {
    if (mark[root] !== 0) continue;
    const path: Array<{ index: number; next: number }> = [{ index: root, next: 0 }];
    mark[root] = 1;
    while (path.length > 0) {
      const top = path.at(-1)!;
      const on = dependencies[top.index]![top.next++];
      if (on === undefined) {
        mark[top.index] = 2;
        path.pop();
      } else if (mark[on] === 1) {
        const from = path.findIndex((frame) => frame.index === on);
        return [...path.slice(from).map((frame) => frame.index), on];
      } else if (mark[on] === 0) {
        mark[on] = 1;
        path.push({ index: on, next: 0 });
      }
    }
  }
  return undefined;
}

/** What a task's dependencies say once each has ended: it may run, or one of them did not complete. */
export type DependencyVerdict = { ready: false } | { ready: true; failed?: { index: number } };

/**
 * Whether task `index` may start, given the reasons of the tasks that have ended (`undefined`: not yet): it
 * waits while a dependency runs; once all have ended, the first that did not complete is named.
 */
export function dependencyVerdict(
  graph: TaskGraph,
  index: number,
  reasonOf: (index: number) => string | undefined,
): DependencyVerdict {
  let failed: number | undefined;
  for (const on of graph.dependencies[index]!) {
    const reason = reasonOf(on);
    if (reason === undefined) return { ready: false };
    if (reason !== 'completed' && failed === undefined) failed = on;
  }
  return failed === undefined ? { ready: true } : { ready: true, failed: { index: failed } };
}
