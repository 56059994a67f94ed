// Leaving plan mode is the host's decision only: a `preTool` hook that allows `exit_plan_mode` (a command hook
// in Claude Code's format answering `{"decision":"approve"}`, or an in-process hook answering allow) does not
// accept the plan; the plan still waits for the host, and the mode stays `plan` until the host accepts. A
// hook's denial still denies.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CommandHook, Hooks } from '../../src/hooks/hook-types.ts';
import { createAgentSystem } from '../../src/index.ts';
import { scripted } from '../../src/providers/scripted.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import { counterIds, tickingClock } from '../support/crash-kit.ts';
import { fieldsOf } from '../support/log-fields.ts';

const plan = '1. Write done.txt';
const exitPlan = { id: 'p1', name: 'exit_plan_mode', input: { plan } };
const decisions = (log: readonly LogEvent[]) =>
  log
    .filter((event) => ['hook.decided', 'approval.decided', 'mode.changed'].includes(event.type))
    .map((event) => ({ type: event.type, data: event.data }));

describe('plan mode with preTool hooks', () => {
  let workspace: string;
  beforeEach(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'agentchart-plan-hooks-'));
  });
  afterEach(() => rm(workspace, { recursive: true, force: true }));

  /** Runs one plan under `hooks` with manual approval; returns the agent waiting on its plan. */
  async function waitingPlan(hooks: Hooks) {
    const model = scripted([{ text: 'My plan.', toolCalls: [exitPlan] }, { text: 'Carried out.' }]);
    const system = createAgentSystem({
      model,
      tools: codingTools(),
      cwd: workspace,
      ids: counterIds(),
      clock: tickingClock(),
      projectInstructions: false,
      permissionMode: 'plan',
      approve: 'manual',
      hooks,
    });
    const agent = await system.createAgent({ id: 'a' });
    const run = agent.run('Make done.txt');
    const outcome = await Promise.race([
      run.then((result) => `ended: ${result.reason}`),
      (async () => {
        for await (const event of agent.events())
          if (event.type === 'log' && event.event.type === 'approval.asked') return 'asked';
        return 'no events';
      })(),
    ]);
    return { system, agent, run, outcome };
  }

  async function approvingCommandHook(): Promise<CommandHook> {
    // Claude Code's older PreToolUse answer: `{"decision":"approve"}` on stdout.
    const file = join(workspace, 'approve.mjs');
    await writeFile(
      file,
      `process.stdout.write(JSON.stringify({ decision: 'approve', reason: 'looks fine' }));\n`,
    );
    return { type: 'command', command: `node ${file}`, matcher: 'exit_plan_mode' };
  }

  it('a command hook answering {"decision":"approve"} does not accept the plan: the host still decides', async () => {
    const hook = await approvingCommandHook();
    const { system, agent, run, outcome } = await waitingPlan({ preTool: [hook] });
    expect(outcome).toBe('asked');
    expect(agent.permissionMode).toBe('plan');
    expect(agent.pendingApprovals().map((question) => question.callId)).toEqual(['p1']);
    agent.approve('p1', { mode: 'accept-edits' });
    expect(await run).toMatchObject({ reason: 'completed', text: 'Carried out.' });
    expect(agent.permissionMode).toBe('accept-edits');
    expect(decisions(agent.log())).toEqual([
      {
        type: 'hook.decided',
        data: { point: 'preTool', hook: hook.command, outcome: 'allow', reason: 'looks fine', callId: 'p1' },
      },
      {
        type: 'approval.decided',
        data: { callId: 'p1', outcome: 'allow', by: 'user', mode: 'accept-edits' },
      },
      {
        type: 'mode.changed',
        data: { from: 'plan', to: 'accept-edits', by: 'plan', plan, callId: 'p1' },
      },
    ]);
    await system.dispose();
  });

  it('an in-process hook answering allow does not accept it either; a denial by the host keeps plan mode', async () => {
    const { system, agent, run, outcome } = await waitingPlan({
      preTool: [{ name: 'yes-man', run: () => ({ decision: 'allow' }) }],
    });
    expect(outcome).toBe('asked');
    expect(agent.permissionMode).toBe('plan');
    agent.deny('p1', 'not yet');
    expect(await run).toMatchObject({ reason: 'completed', text: 'Carried out.' });
    expect(agent.permissionMode).toBe('plan');
    expect(decisions(agent.log())).toEqual([
      { type: 'hook.decided', data: { point: 'preTool', hook: 'yes-man', outcome: 'allow', callId: 'p1' } },
      { type: 'approval.decided', data: { callId: 'p1', outcome: 'deny', by: 'user', reason: 'not yet' } },
    ]);
    await system.dispose();
  });

  it("a hook's denial still denies the plan without asking the host", async () => {
    const { system, agent, run, outcome } = await waitingPlan({
      preTool: [{ name: 'no-man', run: () => ({ decision: 'deny', reason: 'plans are frozen' }) }],
    });
    expect(outcome).toBe('ended: completed');
    expect(agent.permissionMode).toBe('plan');
    expect(agent.pendingApprovals()).toEqual([]);
    expect(fieldsOf(agent.log(), 'tool.result', 'callId', 'outcome', 'content')).toEqual([
      ['p1', 'denied', 'Permission denied by hook no-man: plans are frozen'],
    ]);
    expect(decisions(agent.log())).toEqual([
      {
        type: 'hook.decided',
        data: { point: 'preTool', hook: 'no-man', outcome: 'deny', reason: 'plans are frozen', callId: 'p1' },
      },
    ]);
    await run;
    await system.dispose();
  });
});
