import { describe, expect, it } from 'vitest';
import { createAgentSystem } from '../../src/index.ts';
import type { Approver } from '../../src/runtime/options.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { GateProvider, GateTool, settle } from '../support/controllable.ts';

function counterIds() {
  let n = 0;
  return () => `id${++n}`;
}

/** The approval story of the log: asked, decided (outcome/by), started, result outcome. */
function approvalTrail(log: readonly LogEvent[]): string[] {
  const wanted = new Set(['approval.asked', 'approval.decided', 'tool.started', 'tool.result']);
  return log
    .filter((event) => wanted.has(event.type))
    .map((event) => {
      const data = event.data as { callId: string; outcome?: string; by?: string };
      const detail = [data.outcome, data.by].filter(Boolean).join('/');
      return `${event.type} ${data.callId}${detail ? ` ${detail}` : ''}`;
    });
}

async function setup(approve: Approver | 'deny') {
  const model = new GateProvider();
  const shell = new GateTool('shell', { safe: false, access: 'exec' });
  const system = createAgentSystem({
    model,
    tools: [shell.tool],
    ids: counterIds(),
    projectInstructions: false,
    permissionMode: 'default',
    approve,
  });
  const agent = await system.createAgent({ id: 'a' });
  return { model, shell, system, agent };
}

const call = (id: string, value: string) => ({ id, name: 'shell', input: { value } });

describe('approvals', () => {
  it('waits for agent.approve, then runs the call', async () => {
    const { model, shell, system, agent } = await setup('manual');
    const run = agent.run('go');
    (await model.request(0)).answer('', [call('c1', 'ls')]);
    await settle();
    expect(shell.started).toEqual([]);
    expect(approvalTrail(agent.log())).toEqual(['approval.asked c1']);
    agent.approve('c1');
    await settle();
    shell.finish('c1', 'listing');
    (await model.request(1)).answer('Listed.');
    expect((await run).reason).toBe('completed');
    expect(approvalTrail(agent.log())).toEqual([
      'approval.asked c1',
      'approval.decided c1 allow/user',
      'tool.started c1',
      'tool.result c1 ok',
    ]);
    await system.dispose();
  });

  it('agent.deny gives a denied result the model reads, with the reason', async () => {
    const { model, shell, system, agent } = await setup('manual');
    const run = agent.run('go');
    (await model.request(0)).answer('', [call('c1', 'rm -rf build')]);
    await settle();
    agent.deny('c1', 'not today');
    const second = await model.request(1);
    expect(second.request.messages.at(-1)).toEqual({
      role: 'tool',
      callId: 'c1',
      name: 'shell',
      content: 'Permission denied: not today',
      isError: true,
    });
    second.answer('Understood.');
    expect((await run).reason).toBe('completed');
    expect(shell.started).toEqual([]);
    expect(approvalTrail(agent.log())).toEqual([
      'approval.asked c1',
      'approval.decided c1 deny/user',
      'tool.result c1 denied',
    ]);
    await system.dispose();
  });

  it('allow for the session: the same call later runs without asking', async () => {
    const asked: string[] = [];
    const { model, shell, system, agent } = await setup(async ({ callId }) => {
      asked.push(callId);
      return 'allow_session';
    });
    const run = agent.run('go');
    (await model.request(0)).answer('', [call('c1', 'npm test')]);
    await settle();
    shell.finish('c1');
    (await model.request(1)).answer('', [call('c2', 'npm test')]);
    await settle();
    shell.finish('c2');
    (await model.request(2)).answer('Tests ran twice.');
    expect((await run).reason).toBe('completed');
    expect(asked).toEqual(['c1']);
    expect(approvalTrail(agent.log())).toEqual([
      'approval.asked c1',
      'approval.decided c1 allow_session/host',
      'tool.started c1',
      'tool.result c1 ok',
      'approval.decided c2 allow/session',
      'tool.started c2',
      'tool.result c2 ok',
    ]);
    await system.dispose();
    // Every kind of decision must survive the store's validating reader.
    expect((await system.store.load('a')).events).toEqual(agent.log());
  });

  it('a cancel while waiting ends the call as aborted', async () => {
    const { model, shell, system, agent } = await setup('manual');
    const run = agent.run('go');
    (await model.request(0)).answer('', [call('c1', 'ls')]);
    await settle();
    agent.cancel();
    expect((await run).reason).toBe('canceled');
    expect(shell.started).toEqual([]);
    expect(approvalTrail(agent.log())).toEqual(['approval.asked c1', 'tool.result c1 aborted']);
    await system.dispose();
  });

  it("headless (approve: 'deny'): ask means deny, and the model is told why", async () => {
    const { model, shell, system, agent } = await setup('deny');
    const run = agent.run('go');
    (await model.request(0)).answer('', [call('c1', 'ls')]);
    const second = await model.request(1);
    const result = second.request.messages.at(-1);
    expect(result).toMatchObject({ role: 'tool', callId: 'c1', isError: true });
    expect(result?.role === 'tool' && result.content).toMatch(/^Permission denied: .*headless/);
    second.answer('I cannot run commands here.');
    expect((await run).reason).toBe('completed');
    expect(shell.started).toEqual([]);
    expect(approvalTrail(agent.log())).toEqual([
      'approval.decided c1 deny/headless',
      'tool.result c1 denied',
    ]);
    await system.dispose();
    expect((await system.store.load('a')).events).toEqual(agent.log());
  });

  it('a host approver that rejects counts as a denial', async () => {
    const { model, system, agent } = await setup(async () => {
      throw new Error('approver offline');
    });
    const run = agent.run('go');
    (await model.request(0)).answer('', [call('c1', 'ls')]);
    const second = await model.request(1);
    expect(second.request.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: 'Permission denied: the approver failed (approver offline)',
    });
    second.answer('ok');
    await run;
    await system.dispose();
  });

  it('an allowance for the session survives a resume, because it is folded from the log', async () => {
    const asked: string[] = [];
    const { model, shell, system, agent } = await setup(async ({ callId }) => {
      asked.push(callId);
      return 'allow_session';
    });
    const first = agent.run('go');
    (await model.request(0)).answer('', [call('c1', 'npm test')]);
    await settle();
    shell.finish('c1');
    (await model.request(1)).answer('Done.');
    await first;
    await agent.dispose();
    const resumed = await system.resumeAgent('a');
    const second = resumed.run('again');
    (await model.request(2)).answer('', [call('c2', 'npm test')]);
    await settle();
    shell.finish('c2');
    (await model.request(3)).answer('Done again.');
    expect((await second).reason).toBe('completed');
    expect(asked).toEqual(['c1']);
    expect(approvalTrail(resumed.log()).slice(-3)).toEqual([
      'approval.decided c2 allow/session',
      'tool.started c2',
      'tool.result c2 ok',
    ]);
    await system.dispose();
  });
});
