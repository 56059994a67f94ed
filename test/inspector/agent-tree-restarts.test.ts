// The agent tree shows supervision from the logs of real runs: a background child whose restart is decided
// (its parent's `agent.restarted`) but not made (no `session.restarted` in its own log) waits for it, with
// the count, its policy's limit and the failure; once restarted and finished it keeps the count. A job
// task, which has no parent log, is read from its own `session.restarted`.
import { describe, expect, it } from 'vitest';
import { projectAgentTree } from '../../src/inspector/agent-tree.ts';
import type { ScriptStep } from '../../src/providers/scripted.ts';
import type { Agent } from '../../src/runtime/agent-handle.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { scripted } from '../../src/testing.ts';
import { tickingClock, until } from '../support/crash-kit.ts';
import { supervisedFlakyWorker, TickingSimulatedClock, useSystems } from '../support/mail-kit.ts';

const systemFor = useSystems();
const failing: ScriptStep = { error: { kind: 'bad_request', message: 'the provider refused' } };

const logsOf = (parent: Agent) =>
  new Map<string, readonly LogEvent[]>([
    [parent.id, parent.log()],
    ...parent.children().map((child) => [child.id, child.log()] as [string, readonly LogEvent[]]),
  ]);

describe('restarts in the agent tree', () => {
  it('a child backing off waits for its restart; restarted and finished, it keeps the count', async () => {
    const clock = new TickingSimulatedClock(1_000);
    const { model, tools } = supervisedFlakyWorker();
    const parent = await systemFor({ model, tools, clock }).createAgent({ id: 'parent' });
    const run = parent.run('supervise');
    await until(
      () => parent.log().some((event) => event.type === 'agent.restarted') && clock.pendingTimers > 0,
      'the restart is decided',
    );
    const [childId] = parent.children().map((child) => child.id);
    const waiting = projectAgentTree(logsOf(parent)).agents.find((node) => node.id === childId)!;
    expect([waiting.activity, waiting.waitingFor, waiting.restarts]).toEqual([
      'waiting',
      'its restart 1 of 3 after model_error',
      { count: 1, max: 3, lastReason: 'model_error', lastError: 'the provider refused', backingOff: true },
    ]);

    clock.advance(1_000);
    expect(await run).toMatchObject({ reason: 'completed', text: 'Heard back.' });
    const done = projectAgentTree(logsOf(parent)).agents.find((node) => node.id === childId)!;
    expect([done.activity, done.waitingFor, done.restarts]).toEqual([
      'finished',
      undefined,
      { count: 1, max: 3, lastReason: 'model_error', lastError: 'the provider refused', backingOff: false },
    ]);
  });

  it('a job task shows the restarts of its own log', async () => {
    const model = scripted([failing, failing, { text: 'Done.' }]);
    const system = systemFor({ model, tools: [], clock: tickingClock() });
    const supervision = { restart: 'on-failure', maxRestarts: 2, backoffMs: 0 } as const;
    const job = system.runJob({ tasks: [{ id: 'task', prompt: 'go', supervision }], concurrency: 1 });
    expect(await job.result).toMatchObject([{ reason: 'completed', restarts: 2 }]);
    const events = (await system.store.load('task')).events;
    const [node] = projectAgentTree(new Map([['task', events]])).agents;
    expect([node!.activity, node!.restarts]).toEqual([
      'ended',
      { count: 2, lastReason: 'model_error', lastError: 'the provider refused', backingOff: false },
    ]);
  });
});
