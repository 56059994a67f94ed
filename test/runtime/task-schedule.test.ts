import { describe, expect, it } from 'vitest';
import { taskGraph } from '../../src/runtime/jobs/task-graph.ts';
import { TaskSchedule } from '../../src/runtime/jobs/task-schedule.ts';

/** Takes every ready task, ends them in the order given by `endOrder`, and records what was taken when. */
function drain(schedule: TaskSchedule, endOrder: (taken: number[]) => number[]): number[][] {
  const rounds: number[][] = [];
  while (!schedule.empty) {
    const taken: number[] = [];
    for (let index = schedule.take(); index !== undefined; index = schedule.take()) taken.push(index);
    if (taken.length === 0) throw new Error(`stuck with ${schedule.blocked} blocked tasks`);
    rounds.push(taken);
    for (const index of endOrder(taken)) schedule.ended(index);
  }
  return rounds;
}

describe('TaskSchedule', () => {
  it('hands out ready tasks in task order and frees dependents as their dependencies end', () => {
    const graph = taskGraph('test', [
      { id: 'd', dependsOn: ['b', 'c'] },
      { id: 'b', dependsOn: ['a'] },
      { id: 'c', dependsOn: ['a'] },
      { id: 'a' },
      { id: 'e' },
    ]);
    const schedule = new TaskSchedule(graph);
    expect(schedule.blocked).toBe(3);
    expect(schedule.take()).toBe(3);
    expect(schedule.take()).toBe(4);
    expect(schedule.take()).toBeUndefined();
    schedule.ended(4);
    expect(schedule.blocked).toBe(3);
    schedule.ended(3);
    expect(schedule.blocked).toBe(1);
    expect(schedule.take()).toBe(1);
    schedule.ended(1);
    expect(schedule.take()).toBe(2);
    expect(schedule.blocked).toBe(1);
    schedule.ended(2);
    expect(schedule.blocked).toBe(0);
    expect(schedule.take()).toBe(0);
    expect(schedule.empty).toBe(true);
  });

  it('keeps task order among tasks freed out of order', () => {
    // 0..4 wait for 5..9 respectively; ending 9, 7, 5 frees 4, 2, 0, which still come out as 0, 2, 4.
    const tasks = [
      ...Array.from({ length: 5 }, (_, i) => ({ id: `t${i}`, dependsOn: [`t${i + 5}`] })),
      ...Array.from({ length: 5 }, (_, i) => ({ id: `t${i + 5}` })),
    ];
    const schedule = new TaskSchedule(taskGraph('test', tasks));
    expect(drain(schedule, (taken) => [...taken].reverse())).toEqual([
      [5, 6, 7, 8, 9],
      [0, 1, 2, 3, 4],
    ]);
  });

  it('schedules a chain of 20,000 tasks and a fan-in of 20,000 in one pass each', () => {
    const count = 20_000;
    const chain = Array.from({ length: count }, (_, i) => ({
      id: `c${i}`,
      ...(i > 0 ? { dependsOn: [`c${i - 1}`] } : {}),
    }));
    const rounds = drain(new TaskSchedule(taskGraph('test', chain)), (taken) => taken);
    expect(rounds).toHaveLength(count);
    expect(rounds.flat()).toEqual(Array.from({ length: count }, (_, i) => i));
    const fanIn = [
      { id: 'last', dependsOn: Array.from({ length: count }, (_, i) => `f${i}`) },
      ...Array.from({ length: count }, (_, i) => ({ id: `f${i}` })),
    ];
    const fanRounds = drain(new TaskSchedule(taskGraph('test', fanIn)), (taken) => taken);
    expect(fanRounds.map((round) => round.length)).toEqual([count, 1]);
    expect(fanRounds[1]).toEqual([0]);
  });
});
