// Inbox semantics through the public API: followup, steer, inject, cancel with and without clearing.
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import { createAgentSystem } from '../../src/index.ts';
import { pendingInbox } from '../../src/session/repair.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { GateProvider, settle } from '../support/controllable.ts';

function setup() {
  let n = 0;
  const model = new GateProvider();
  const system = createAgentSystem({
    model,
    ids: () => `id${++n}`,
    clock: new SimulatedClock(1_000),
    projectInstructions: false,
    permissionMode: 'bypass',
  });
  return { model, system };
}

/** The log as `[type, turn?, detail]` where detail is the channel, the claimed ids or the reason. */
function outline(events: readonly LogEvent[]): unknown[] {
  return events
    .filter((event) => event.type !== 'session.start' && event.type !== 'assistant.message')
    .map((event) => {
      const data = event.data as { channel?: string; ids?: string[]; reason?: string; id?: string };
      const detail =
        data.ids ?? data.reason ?? (data.channel ? `${data.channel}:${data.id ?? ''}` : undefined);
      return detail === undefined ? [event.type, event.turn] : [event.type, event.turn, detail];
    });
}

describe('inbox through the public API', () => {
  it('a followup sent while a turn runs waits for the next turn', async () => {
    const { model, system } = setup();
    const agent = await system.createAgent({ id: 'a' });
    const first = agent.run('one');
    await settle();
    const second = agent.run('two');
    (await model.request(0)).answer('First.');
    expect(await first).toEqual({
      reason: 'completed',
      text: 'First.',
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
      turn: 1,
      denied: [],
    });
    (await model.request(1)).answer('Second.');
    expect(await second).toMatchObject({ reason: 'completed', text: 'Second.', turn: 2 });
    expect(model.requests[0]!.request.messages).toEqual([{ role: 'user', content: 'one' }]);
    expect(outline(agent.log())).toEqual([
      ['inbox.queued', undefined, 'followup:id2'],
      ['turn.start', 1],
      ['inbox.claimed', 1, ['id2']],
      ['user.message', 1, 'followup:'],
      ['step.start', 1],
      ['inbox.queued', undefined, 'followup:id3'],
      ['step.end', 1],
      ['turn.end', 1, 'completed'],
      ['turn.start', 2],
      ['inbox.claimed', 2, ['id3']],
      ['user.message', 2, 'followup:'],
      ['step.start', 2],
      ['step.end', 2],
      ['turn.end', 2, 'completed'],
    ]);
    await system.dispose();
  });

  it('a steer reaches the next step of the running turn, before its step.start', async () => {
    const { model, system } = setup();
    const agent = await system.createAgent({ id: 'a' });
    const run = agent.run('start');
    await settle();
    const steerId = agent.steer('look in src/ instead');
    (await model.request(0)).answer('Looking.');
    (await model.request(1)).answer('Found it.');
    expect(await run).toMatchObject({ reason: 'completed', text: 'Found it.', turn: 1 });
    const types = agent.log().map((event) => event.type);
    const steerMessage = agent
      .log()
      .findIndex((event) => event.type === 'user.message' && event.data.channel === 'steer');
    expect(steerMessage).toBeGreaterThan(-1);
    expect(types.slice(steerMessage - 1, steerMessage + 2)).toEqual([
      'inbox.claimed',
      'user.message',
      'step.start',
    ]);
    expect(agent.log()[steerMessage]!.data).toEqual({
      channel: 'steer',
      content: 'look in src/ instead',
      inboxId: steerId,
    });
    expect(model.requests[1]!.request.messages.at(-1)).toEqual({
      role: 'user',
      content: 'look in src/ instead',
    });
    await system.dispose();
  });

  it('an inject waits without waking an idle agent and is claimed by the next turn', async () => {
    const { model, system } = setup();
    const agent = await system.createAgent({ id: 'a' });
    const injectId = agent.inject('the build is green');
    await settle();
    expect(agent.state).toBe('ready.idle');
    expect(model.requests).toHaveLength(0);
    expect(pendingInbox(agent.log()).map((item) => item.id)).toEqual([injectId]);
    const run = agent.run('continue');
    (await model.request(0)).answer('Ok.');
    await run;
    expect(outline(agent.log()).slice(0, 7)).toEqual([
      ['inbox.queued', undefined, `inject:${injectId}`],
      ['inbox.queued', undefined, 'followup:id3'],
      ['turn.start', 1],
      ['inbox.claimed', 1, ['id3']],
      ['user.message', 1, 'followup:'],
      ['inbox.claimed', 1, [injectId]],
      ['user.message', 1, 'inject:'],
    ]);
    expect(pendingInbox(agent.log())).toEqual([]);
    await system.dispose();
  });

  it('a cancel keeps queued input pending; the next turn after a new followup claims all of it', async () => {
    const { model, system } = setup();
    const agent = await system.createAgent({ id: 'a' });
    const run = agent.run('first');
    await settle();
    const queued = agent.followup('later');
    const steered = agent.steer('also this');
    agent.cancel();
    expect(await run).toMatchObject({ reason: 'canceled', turn: 1 });
    await agent.whenIdle();
    expect(agent.state).toBe('ready.idle');
    expect(pendingInbox(agent.log()).map((item) => item.id)).toEqual([queued, steered]);
    const next = agent.run('go on');
    (await model.request(1)).answer('All done.');
    expect(await next).toMatchObject({ reason: 'completed', turn: 2 });
    const claimed = agent
      .log()
      .filter((event) => event.type === 'inbox.claimed' && event.turn === 2)
      .flatMap((event) => event.data.ids as string[]);
    // Follow-ups when the turn starts, then the steer that came back unclaimed, before the first step.
    expect(claimed).toEqual([queued, 'id5', steered]);
    expect(pendingInbox(agent.log())).toEqual([]);
    await system.dispose();
  });

  it('cancel(cause, { clearInbox: true }) logs inbox.cleared and drops what was queued', async () => {
    const { model, system } = setup();
    const agent = await system.createAgent({ id: 'a' });
    const run = agent.run('first');
    await settle();
    const queued = agent.followup('never mind');
    agent.cancel('user', { clearInbox: true });
    expect(await run).toMatchObject({ reason: 'canceled' });
    const cleared = agent.log().filter((event) => event.type === 'inbox.cleared');
    expect(cleared.map((event) => event.data)).toEqual([{ ids: [queued] }]);
    expect(pendingInbox(agent.log())).toEqual([]);
    expect(model.requests).toHaveLength(1);
    await system.dispose();
  });
});
