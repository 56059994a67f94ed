// A plan waiting for the host is a durable wait like any approval: a child process runs an agent in plan
// mode until its `exit_plan_mode` call waits, is SIGKILLed there, and this process resumes the session.
// The same question comes back; accepting it switches the mode and the turn carries the plan out.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/actors/approval.ts';
import { fileStore } from '../../src/session/file-store.ts';
import { startScriptUntil } from '../support/child-run.ts';
import { assertCallsPaired } from '../support/crash-kit.ts';
import { planWaitSystem, waitingPlan } from '../support/plan-wait-kit.ts';

const temporary: string[] = [];
afterAll(() => Promise.all(temporary.map((path) => rm(path, { recursive: true, force: true }))));

describe('SIGKILL while a plan waits for approval, then resume', () => {
  it('asks about the same plan again; accepting it switches the mode and the turn goes on', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentchart-plan-wait-'));
    const workspace = await mkdtemp(join(tmpdir(), 'agentchart-plan-work-'));
    temporary.push(dir, workspace);
    const child = await startScriptUntil('test/fixtures/plan-wait-child.ts', 'WAITING', {
      args: [dir, workspace],
      timeoutMs: 30_000,
    });
    const before = (await fileStore(dir).load('main')).events;
    child.kill('SIGKILL');
    const run = await child.done;
    expect(run.signal).toBe('SIGKILL');
    expect(run.stdout).toContain('ASK p1 exit_plan_mode\n');
    // What the crash left: the plan asked about, nothing decided, the mode still plan.
    expect(before.map((event) => event.type).slice(-3)).toEqual([
      'assistant.message',
      'tool.call',
      'approval.asked',
    ]);
    expect(before.filter((event) => event.type === 'approval.asked').map((event) => event.data)).toEqual([
      { callId: 'p1' },
    ]);
    expect(before.some((event) => event.type === 'mode.changed')).toBe(false);

    const asked: ApprovalRequest[] = [];
    const system = planWaitSystem({
      dir,
      cwd: workspace,
      idPrefix: 'r',
      approve: async (request) => {
        asked.push(request);
        return { outcome: 'allow', mode: 'accept-edits' };
      },
    });
    const agent = await system.resumeAgent('main');
    const result = await agent.whenTurnEnds(1);
    expect(asked.map((request) => [request.callId, request.tool, request.input])).toEqual([
      ['p1', 'exit_plan_mode', { plan: waitingPlan }],
    ]);
    expect(result).toMatchObject({ reason: 'completed', text: 'Done: planned.', turn: 1 });
    expect(agent.permissionMode).toBe('accept-edits');
    await system.dispose();
    const after = (await fileStore(dir).load('main')).events;
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.filter((event) => event.type === 'mode.changed').map((event) => event.data)).toEqual([
      { from: 'plan', to: 'accept-edits', by: 'plan', plan: waitingPlan, callId: 'p1' },
    ]);
    expect(after.filter((event) => event.type === 'tool.result').map((event) => event.data.outcome)).toEqual([
      'ok',
      'ok',
    ]);
    assertCallsPaired(after);
    expect(await readFile(join(workspace, 'planned.txt'), 'utf8')).toBe('planned');
  }, 60_000);
});
