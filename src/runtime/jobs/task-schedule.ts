// Which of a job's tasks may start next, kept up to date as tasks end: a count of unfinished dependencies
// per task and a queue of the ready ones in task order. Taking a task and ending one cost O(log n) plus its
// dependents, so a job of thousands of tasks schedules in O(n log n + edges), not O(n²).
import type { TaskGraph } from './task-graph.ts';

export class TaskSchedule {
  /** Dependencies of each task that have not ended yet. */
  private readonly unfinished: number[];
  /** Tasks whose dependencies have all ended and that nobody has taken: a min-heap of task indices. */
  private readonly ready: number[] = [];
  private blockedCount = 0;

  constructor(private readonly graph: TaskGraph) {
    this.unfinished = graph.dependencies.map((on) => on.length);
    for (const [index, count] of this.unfinished.entries()) {
      if (count === 0) this.push(index);
      else this.blockedCount++;
    }
  }

  /** Tasks neither taken nor ready: waiting for a dependency to end. */
  get blocked(): number {
    return this.blockedCount;
  }

  /** Whether no task is left to take (ready or blocked). */
  get empty(): boolean {
    return this.ready.length === 0 && this.blockedCount === 0;
  }

  /** The ready task with the lowest index, taken; undefined while every untaken task waits. */
  take(): number | undefined {
    const top = this.ready[0];
    if (top === undefined) return undefined;
    const last = this.ready.pop()!;
    if (this.ready.length > 0) {
      this.ready[0] = last;
      this.siftDown(0);
    }
    return top;
  }

  /** Task `index` ended: its dependents whose dependencies have now all ended become ready. */
  ended(index: number): void {
    for (const dependent of this.graph.dependents[index]!) {
      if (--this.unfinished[dependent]! > 0) continue;
      this.blockedCount--;
      this.push(dependent);
    }
  }

  private push(index: number): void {
    const heap = this.ready;
    heap.push(index);
    let at = heap.length - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (heap[parent]! <= index) break;
      heap[at] = heap[parent]!;
      at = parent;
    }
    heap[at] = index;
  }

  private siftDown(from: number): void {
    const heap = this.ready;
    const value = heap[from]!;
    let at = from;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= heap.length) break;
      if (child + 1 < heap.length && heap[child + 1]! < heap[child]!) child++;
      if (heap[child]! >= value) break;
      heap[at] = heap[child]!;
      at = child;
    }
    heap[at] = value;
  }
}
