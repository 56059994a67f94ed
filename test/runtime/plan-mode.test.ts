// Plan mode: the model gets `exit_plan_mode{plan}`; the host accepts the plan (naming the next mode) or
// denies it. Accepting logs `mode.changed` and the same turn goes on with the tools the new mode offers.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalAnswer, ApprovalRequest } from '../../src/actors/approval.ts';
import { assertSameLog, createAgentSystem } from '../../src/index.ts';
import { scripted } from '../../src/providers/scripted.ts';
import type { ModelRequest } from '../../src/providers/types.ts';
import { replaySession } from '../../src/replay/replay-session.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import { counterIds, tickingClock } from '../support/crash-kit.ts';

const plan = '1. Read notes.txt\n2. Write done.txt';
const exitPlan = { id: 'p1', name: 'exit_plan_mode', input: { plan } };
const writeDone = { id: 'w1', name: 'write_file', input: { path: 'done.txt', content: 'done' } };
const toolNames = (request: ModelRequest) => request.tools.map((tool) => tool.name);
const types = (log: readonly LogEvent[], wanted: string[]) =>
  log
    .filter((event) => wanted.includes(event.type))
    .map((event) => `${event.type} ${JSON.stringify(event.data)}`);

describe('plan mode', () => {
  let workspace: string;
  beforeEach(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'agentchart-plan-'));
  });
  afterEach(() => rm(workspace, { recursive: true, force: true }));

  const planSystem = (
    model: ReturnType<typeof scripted>,
    approve: ((request: ApprovalRequest) => Promise<ApprovalAnswer>) | 'manual',
  ) =>
    createAgentSystem({
      model,
      tools: codingTools(),
      cwd: workspace,
      ids: counterIds(),
      clock: tickingClock(),
      projectInstructions: false,
      permissionMode: 'plan',
      approve,
    });

  it('an accepted plan switches the mode the host names, and the same turn carries it out', async () => {
    const model = scripted([
      { text: 'My plan.', toolCalls: [exitPlan] },
      { text: 'Writing.', toolCalls: [writeDone] },
      { text: 'Done.' },
    ]);
    const asked: string[] = [];
    const system = planSystem(model, async (request) => {
      asked.push(`${request.callId} ${request.tool}`);
      return { outcome: 'allow', mode: 'accept-edits' };
    });
    const agent = await system.createAgent({ id: 'a' });
    expect(agent.permissionMode).toBe('plan');
    const result = await agent.run('Make done.txt');
    expect(result).toMatchObject({ reason: 'completed', text: 'Done.', turn: 1 });
    // Only the plan was put to the host: the write then ran by the new mode.
    expect(asked).toEqual(['p1 exit_plan_mode']);
    expect(agent.permissionMode).toBe('accept-edits');
    const [first, second] = model.requests;
    expect(toolNames(first!)).toEqual(['read_file', 'list_dir', 'glob', 'grep', 'exit_plan_mode']);
    expect(toolNames(second!)).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'list_dir',
      'glob',
      'grep',
      'bash',
    ]);
    expect(second!.messages.at(-1)).toEqual({
      role: 'tool',
      callId: 'p1',
      name: 'exit_plan_mode',
      content:
        'The user accepted your plan. The permission mode is now accept-edits: you may read and edit files; ' +
        'commands are put to the user. Carry out the plan now.',
      isError: false,
    });
    expect(await readFile(join(workspace, 'done.txt'), 'utf8')).toBe('done');
    expect(types(agent.log(), ['approval.decided', 'mode.changed', 'step.start'])).toEqual([
      expect.stringMatching(/^step\.start .*"exit_plan_mode"/),
      'approval.decided {"callId":"p1","outcome":"allow","by":"host","mode":"accept-edits"}',
      `mode.changed ${JSON.stringify({ from: 'plan', to: 'accept-edits', by: 'plan', plan, callId: 'p1' })}`,
      expect.stringMatching(/^step\.start .*"write_file"/),
      'approval.decided {"callId":"w1","outcome":"allow","by":"mode","reason":"write access is allowed in accept-edits mode"}',
      expect.stringMatching(/^step\.start /),
    ]);
    await system.dispose();
  });

  it('a denied plan keeps the agent in plan mode, and the model reads why', async () => {
    const model = scripted([{ text: 'My plan.', toolCalls: [exitPlan] }, { text: 'I will revise it.' }]);
    const system = planSystem(model, async () => ({ outcome: 'deny', reason: 'also update the README' }));
    const agent = await system.createAgent({ id: 'a' });
    const result = await agent.run('Make done.txt');
    expect(result).toMatchObject({ reason: 'completed', text: 'I will revise it.' });
    expect(agent.permissionMode).toBe('plan');
    expect(toolNames(model.requests[1]!)).toEqual([
      'read_file',
      'list_dir',
      'glob',
      'grep',
      'exit_plan_mode',
    ]);
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({
      role: 'tool',
      callId: 'p1',
      content: 'Permission denied: also update the README',
      isError: true,
    });
    expect(agent.log().filter((event) => event.type === 'mode.changed')).toEqual([]);
    await system.dispose();
  });

  it('agent.approve names the mode; outside plan mode exit_plan_mode is not offered; headless it is denied', async () => {
    const model = scripted([
      { text: 'Plan.', toolCalls: [exitPlan] },
      { text: 'Again.', toolCalls: [{ ...exitPlan, id: 'p2' }] },
      { text: 'Stop.' },
    ]);
    const system = planSystem(model, 'manual');
    const agent = await system.createAgent({ id: 'a' });
    const run = agent.run('go');
    for await (const event of agent.events())
      if (event.type === 'log' && event.event.type === 'approval.asked') break;
    expect(agent.pendingApprovals().map((question) => question.callId)).toEqual(['p1']);
    expect(() => agent.approve('p1', { mode: 'sometimes' as never })).toThrow(
      /agent\.approve: options\.mode/,
    );
    agent.approve('p1');
    await run;
    expect(agent.permissionMode).toBe('default');
    const results = agent.log().filter((event) => event.type === 'tool.result');
    expect(results.map((event) => [event.data.callId, event.data.outcome, event.data.content])).toEqual([
      ['p1', 'ok', expect.stringContaining('The permission mode is now default')],
      // No longer offered: the next step's tools are those of the new mode.
      ['p2', 'error', expect.stringMatching(/^Unknown tool "exit_plan_mode"/)],
    ]);
    await system.dispose();

    const headless = createAgentSystem({
      model: scripted([{ toolCalls: [exitPlan] }, { text: 'ok' }]),
      cwd: workspace,
      projectInstructions: false,
      permissionMode: 'plan',
      approve: 'deny',
    });
    const alone = await headless.createAgent({ id: 'h' });
    await alone.run('go');
    expect(alone.permissionMode).toBe('plan');
    expect(alone.log().find((event) => event.type === 'approval.decided')?.data).toMatchObject({
      callId: 'p1',
      outcome: 'deny',
      by: 'headless',
    });
    await headless.dispose();
  });

  it('setPermissionMode switches from the host or for a user (logged), and a replay of the session matches byte for byte', async () => {
    const model = scripted([
      { text: 'Plan.', toolCalls: [exitPlan] },
      { text: 'Writing.', toolCalls: [writeDone] },
      { text: 'Done.' },
      { text: 'Planning again.', toolCalls: [{ id: 'r1', name: 'read_file', input: { path: 'done.txt' } }] },
      { text: 'Read it.' },
    ]);
    const system = planSystem(model, async (request) =>
      request.tool === 'exit_plan_mode' ? { outcome: 'allow', mode: 'accept-edits' } : 'deny',
    );
    const agent = await system.createAgent({ id: 'a' });
    await agent.run('Make done.txt');
    agent.setPermissionMode('accept-edits');
    agent.setPermissionMode('default', { by: 'user' });
    agent.setPermissionMode('plan');
    expect(() => agent.setPermissionMode('loose' as never)).toThrow(/agent\.setPermissionMode: mode/);
    expect(() => agent.setPermissionMode('plan', { by: 'robot' as never })).toThrow(
      /agent\.setPermissionMode: options\.by must be one of "host", "user"/,
    );
    await agent.run('Now look again');
    expect(toolNames(model.requests[3]!)).toContain('exit_plan_mode');
    const recorded = agent.log();
    expect(types(recorded, ['mode.changed']).map((text) => JSON.parse(text.slice(13)))).toEqual([
      { from: 'plan', to: 'accept-edits', by: 'plan', plan, callId: 'p1' },
      { from: 'accept-edits', to: 'default', by: 'user' },
      { from: 'default', to: 'plan', by: 'host' },
    ]);
    await system.dispose();

    await rm(join(workspace, 'done.txt'));
    const replayed = await replaySession(recorded, {
      setup: {
        tools: codingTools(),
        approve: async (request) =>
          request.tool === 'exit_plan_mode' ? { outcome: 'allow', mode: 'accept-edits' } : 'deny',
      },
    });
    expect(replayed.stopped).toBeUndefined();
    assertSameLog(recorded, replayed.events);
  });
});
