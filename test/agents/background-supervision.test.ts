// Supervision of background children end to end on a scripted model and the simulated clock: a child whose
// turn ends `model_error` is restarted from its own log after its backoff (logged `agent.restarted` in the
// parent, `session.restarted` in the child), its completed tool calls are not run again, and the parent hears
// the success; a child that fails past its budget escalates its failure as its result; `restart: 'never'`
// is today's behaviour; a stop during the backoff ends the supervision without a restart.
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import { ConfigError } from '../../src/errors/config-error.ts';
import type { ScriptStep } from '../../src/providers/scripted.ts';
import type { ModelRequest } from '../../src/providers/types.ts';
import type { Agent } from '../../src/runtime/agent-handle.ts';
import { memoryStore } from '../../src/session/memory-store.ts';
import type { LogEvent, SessionStore } from '../../src/session/types.ts';
import { backgroundAgentTools } from '../../src/tools/background-agents.ts';
import type { SupervisionPolicy } from '../../src/tools/supervision-option.ts';
import { assertCallsPaired, routedModel, stepIndex, until } from '../support/crash-kit.ts';
import { crashedAt, crashPoints, RecordingStore } from '../support/crash-store.ts';
import {
  call,
  countingTool,
  expectMailPaired,
  storedLogs,
  TickingSimulatedClock,
  useSystems,
} from '../support/mail-kit.ts';

const systemFor = useSystems();

const failing: ScriptStep = { error: { kind: 'bad_request', message: 'the provider refused' } };

/**
 * A parent that starts one `worker` child (supervised by `policy`) and, once it hears from it, answers
 * with what it heard; the worker answers `worker` in order (one script step per request).
 */
function tree(policy: SupervisionPolicy | undefined, worker: ScriptStep[]) {
  const clock = new TickingSimulatedClock(1_000);
  const note = countingTool();
  let asked = 0;
  const model = routedModel({
    supervise: (request: ModelRequest) =>
      stepIndex(request) === 0
        ? { toolCalls: [call('spawn_agent', { agent_type: 'worker', prompt: 'work', description: 'W' })] }
        : { text: 'Heard back.' },
    work: () => worker[asked++] ?? { text: 'no more script' },
  });
  const tools = [
    note.tool,
    ...backgroundAgentTools({
      agentTypes: { worker: { description: 'Works.', ...(policy ? { supervision: policy } : {}) } },
    }),
  ];
  const system = systemFor({ model, tools, clock });
  return { system, clock, runs: note.runs, asked: () => asked, options: { model, tools } };
}

const restartsIn = (events: readonly LogEvent[]) =>
  events.filter((event) => event.type === 'agent.restarted').map((event) => event.data);

/** Advances the clock by each backoff once the parent has decided that restart (and its timer is set). */
async function passBackoffs(parent: Agent, clock: TickingSimulatedClock, delays: number[]): Promise<void> {
  for (const [index, delay] of delays.entries()) {
    await until(
      () => restartsIn(parent.log()).length > index && clock.pendingTimers > 0,
      `restart ${index + 1} is decided`,
    );
    clock.advance(delay);
  }
}

describe('supervision of background children', () => {
  it('a child that fails twice then succeeds is restarted twice from its log; the parent hears the success', async () => {
    const policy: SupervisionPolicy = { restart: 'on-failure', maxRestarts: 3, backoffMs: 1_000 };
    const { system, clock, runs } = tree(policy, [
      { toolCalls: [call('note', { value: 'a' })] },
      failing,
      failing,
      { text: 'Work done.' },
    ]);
    const parent = await system.createAgent({ id: 'parent' });
    const run = parent.run('supervise');
    await passBackoffs(parent, clock, [1_000, 2_000]);
    expect(await run).toMatchObject({ reason: 'completed', text: 'Heard back.' });
    const [child] = parent.children();
    expect(child!.status).toBe('finished');
    expect(await child!.result).toMatchObject({ reason: 'completed', text: 'Work done.' });
    // The completed call ran once: the restarts read its result from the log.
    expect(runs).toEqual(['a']);
    expect(restartsIn(parent.log())).toEqual([
      {
        childSessionId: child!.id,
        attempt: 1,
        reason: 'model_error',
        error: 'the provider refused',
        backoffMs: 1_000,
      },
      {
        childSessionId: child!.id,
        attempt: 2,
        reason: 'model_error',
        error: 'the provider refused',
        backoffMs: 2_000,
      },
    ]);
    const logs = await storedLogs(system.store);
    const childLog = logs.get(child!.id)!;
    expect(childLog.filter((event) => event.type === 'session.restarted').map((event) => event.data)).toEqual(
      [
        { attempt: 1, reason: 'model_error', error: 'the provider refused' },
        { attempt: 2, reason: 'model_error', error: 'the provider refused' },
      ],
    );
    expect(childLog.filter((event) => event.type === 'turn.end').map((event) => event.data.reason)).toEqual([
      'model_error',
      'model_error',
      'completed',
    ]);
    expect(parent.log().find((event) => event.type === 'agent.spawned')?.data).toEqual({
      childSessionId: child!.id,
      callId: 'call_0_0',
      background: true,
      supervision: policy,
    });
    // One result reached the parent: the success.
    const results = parent
      .log()
      .filter((event) => event.type === 'inbox.queued' && event.data.kind === 'result');
    expect(results.map((event) => event.data.message)).toEqual([
      `Agent ${child!.id} finished (completed):\nWork done.`,
    ]);
    for (const [id, events] of logs) assertCallsPaired(events, id);
    expectMailPaired(logs);
  });

  it('a child that fails past its budget escalates: its failure is its result', async () => {
    const policy: SupervisionPolicy = { restart: 'on-failure', maxRestarts: 1, backoffMs: 500 };
    const { system, clock, asked } = tree(policy, [failing, failing]);
    const parent = await system.createAgent({ id: 'parent' });
    const run = parent.run('supervise');
    await passBackoffs(parent, clock, [500]);
    expect(await run).toMatchObject({ reason: 'completed', text: 'Heard back.' });
    const [child] = parent.children();
    expect(asked()).toBe(2);
    expect([child!.status, (await child!.result).reason]).toEqual(['finished', 'model_error']);
    expect(restartsIn(parent.log())).toHaveLength(1);
    const results = parent
      .log()
      .filter((event) => event.type === 'inbox.queued' && event.data.kind === 'result');
    expect(results.map((event) => event.data.message)).toEqual([
      `Agent ${child!.id} finished (model_error):\n(Gave up after 1 restart: model_error: the provider refused.)`,
    ]);
    const sent = child!.log().filter((event) => event.type === 'message.sent');
    expect(sent.map((event) => [event.data.kind, event.data.reason])).toEqual([['result', 'model_error']]);
    expectMailPaired(await storedLogs(system.store));
  });

  it("restart: 'never' (the default) reports the failure at once, as without supervision", async () => {
    for (const policy of [undefined, { restart: 'never' } as const]) {
      const { system, clock } = tree(policy, [failing]);
      const parent = await system.createAgent({ id: 'parent' });
      expect(await parent.run('supervise')).toMatchObject({ reason: 'completed', text: 'Heard back.' });
      const [child] = parent.children();
      expect(clock.pendingTimers).toBe(0);
      expect(restartsIn(parent.log())).toEqual([]);
      expect(parent.log().find((event) => event.type === 'agent.spawned')?.data).toEqual({
        childSessionId: child!.id,
        callId: 'call_0_0',
        background: true,
      });
      const results = parent
        .log()
        .filter((event) => event.type === 'inbox.queued' && event.data.kind === 'result');
      expect(results.map((event) => event.data.message)).toEqual([
        `Agent ${child!.id} finished (model_error):\n(it gave no final text)`,
      ]);
      expect(child!.log().some((event) => event.type === 'session.restarted')).toBe(false);
    }
  });

  it('a cancel of the parent during the backoff ends the supervision: no restart, no result', async () => {
    const policy: SupervisionPolicy = { restart: 'on-failure', maxRestarts: 2, backoffMs: 5_000 };
    const { system, clock, asked } = tree(policy, [failing, { text: 'never asked' }]);
    const parent = await system.createAgent({ id: 'parent' });
    const run = parent.run('supervise');
    await until(
      () => restartsIn(parent.log()).length === 1 && clock.pendingTimers > 0,
      'the restart is decided',
    );
    const [child] = parent.children();
    expect(child!.supervision).toEqual({ state: 'backingOff', restarts: 1 });
    expect(() => child!.send('Are you there?')).toThrow(
      `agent ${child!.id} failed and waits to be restarted: write again once it runs`,
    );
    parent.cancel();
    expect(await run).toMatchObject({ reason: 'canceled' });
    await until(() => child!.status === 'stopped', 'the child is stopped');
    expect(clock.pendingTimers).toBe(0);
    clock.advance(60_000);
    expect(asked()).toBe(1);
    expect(child!.supervision).toBeUndefined();
    // Its last turn's result is its result; nothing was sent to the parent.
    expect((await child!.result).reason).toBe('model_error');
    const childLog = child!.log();
    expect(childLog.some((event) => event.type === 'session.restarted')).toBe(false);
    expect(childLog.some((event) => event.type === 'message.sent')).toBe(false);
    expect(childLog.at(-1)?.type).toBe('session.end');
    expectMailPaired(await storedLogs(system.store));
  });

  it('a parent that crashed during the backoff resumes it: the restart count and the wait come from the logs', async () => {
    const policy: SupervisionPolicy = { restart: 'on-failure', maxRestarts: 2, backoffMs: 2_000 };
    const store = new RecordingStore();
    const first = tree(policy, [failing]);
    const crashed = systemFor({ ...first.options, store });
    const parent = await crashed.createAgent({ id: 'parent' });
    void parent.run('supervise').catch(() => undefined);
    const durable = () =>
      store.writes.some(
        (write) => write.op === 'append' && write.events.some((event) => event.type === 'agent.restarted'),
      );
    await until(durable, 'the restart is durable');
    // The process dies here: a new one finds what was durable.
    const points = crashPoints(store.writes);
    const survived = await crashedAt(points, points.length);
    const decided = (await survived.load('parent')).events.find((event) => event.type === 'agent.restarted')!;
    const second = tree(policy, [{ text: 'Work done.' }]);
    const clock = new SimulatedClock(decided.ts + 500);
    const resumed = systemFor({ ...second.options, store: survived, clock });
    const again = await resumed.resumeAgent('parent');
    const [child] = again.children();
    expect(child!.supervision).toEqual({ state: 'backingOff', restarts: 1 });
    // What is left of the 2 s wait, counted from when the restart was decided.
    clock.advance(1_499);
    expect(second.asked()).toBe(0);
    clock.advance(1);
    expect(await child!.result).toMatchObject({ reason: 'completed', text: 'Work done.' });
    await until(
      () => again.log().some((event) => event.type === 'turn.end' && event.data.reason === 'completed'),
      'the parent hears back',
    );
    expect(restartsIn(again.log()).map((restart) => restart.attempt)).toEqual([1]);
    const childLog = (await survived.load(child!.id)).events;
    expect(
      childLog.filter((event) => event.type === 'session.restarted').map((event) => event.data.attempt),
    ).toEqual([1]);
    expectMailPaired(await storedLogs(survived));
  });
});

describe('supervision of a child whose run breaks off', () => {
  it('a child whose log stopped writing is brought back from its stored log and goes on', async () => {
    const policy: SupervisionPolicy = { restart: 'on-failure', maxRestarts: 1, backoffMs: 100 };
    const inner = memoryStore();
    let failed = false;
    // The store refuses one write of the child's (the disk was full for a moment): its log stops writing.
    const store: SessionStore = {
      kind: 'flaky',
      create: (id) => inner.create(id),
      append: async (id, events) => {
        if (!failed && id !== 'parent' && events.some((event) => event.type === 'tool.result')) {
          failed = true;
          throw new Error('ENOSPC: no space left on device');
        }
        return inner.append(id, events);
      },
      load: (id) => inner.load(id),
      exists: (id) => inner.exists(id),
      list: () => inner.list(),
      remove: (id) => inner.remove(id),
    };
    const { options, clock, runs } = tree(policy, [
      { toolCalls: [call('note', { value: 'a' })] },
      { text: 'Work done.' },
      { text: 'Work done after the restart.' },
    ]);
    const system = systemFor({ ...options, store, clock });
    const parent = await system.createAgent({ id: 'parent' });
    const run = parent.run('supervise');
    await passBackoffs(parent, clock, [100]);
    expect(await run).toMatchObject({ reason: 'completed', text: 'Heard back.' });
    const [child] = parent.children();
    expect(restartsIn(parent.log())).toEqual([
      {
        childSessionId: child!.id,
        attempt: 1,
        reason: 'crashed',
        error: 'ENOSPC: no space left on device',
        backoffMs: 100,
      },
    ]);
    expect(runs).toEqual(['a']);
    expect(await child!.result).toMatchObject({ reason: 'completed', text: 'Work done.', turn: 2 });
    // The stored log stops where the write failed; the restart resumed it: repair (the call's outcome is
    // unknown, never run again), then the restart and the work given again.
    const childLog = (await inner.load(child!.id)).events;
    const restart = childLog.findIndex((event) => event.type === 'session.resumed');
    expect(
      childLog.slice(restart).map((event) => [event.type, event.data.outcome ?? event.data.reason]),
    ).toEqual([
      ['session.resumed', undefined],
      ['tool.result', 'unknown'],
      ['step.end', undefined],
      ['turn.end', 'interrupted'],
      ['session.restarted', 'crashed'],
      ['inbox.queued', undefined],
      ['turn.start', undefined],
      ['inbox.claimed', undefined],
      ['user.message', undefined],
      ['step.start', undefined],
      ['assistant.message', undefined],
      ['step.end', undefined],
      ['turn.end', 'completed'],
      ['message.sent', 'completed'],
      ['session.end', 'disposed'],
    ]);
    expect(childLog.slice(0, restart).at(-1)?.type).toBe('tool.started');
    const logs = await storedLogs(inner);
    for (const [id, events] of logs) assertCallsPaired(events, id);
    expectMailPaired(logs);
  });
});

describe('a bad supervision policy', () => {
  it('is refused when the tools are made, naming it, with the nearest known key', () => {
    const refusal = (given: unknown) => {
      try {
        backgroundAgentTools(given as never);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      return 'accepted';
    };
    const typed = (supervision: unknown) => ({ agentTypes: { t: { description: 'x', supervision } } });
    expect(
      [
        { supervision: { restart: 'always' } },
        { supervision: { restart: 'on-failure', maxRestart: 2 } },
        typed({ restart: 'on-failure', maxRestarts: -1 }),
        typed({ restart: 'on-failure', maxRestarts: 1.5 }),
        typed({ restart: 'on-failure', backoffMs: Number.NaN }),
        typed({ restart: 'on-failure', backoffMs: Number.POSITIVE_INFINITY }),
        { supervision: 'on-failure' },
        { supervison: { restart: 'never' } },
        typed({ restart: 'never', maxRestarts: 0, backoffMs: 0 }),
      ].map(refusal),
    ).toEqual([
      'backgroundAgentTools: supervision.restart must be one of "never", "on-failure", got "always"',
      'backgroundAgentTools: supervision has an unknown key "maxRestart" (did you mean "maxRestarts"?)',
      'backgroundAgentTools: agentTypes.t.supervision.maxRestarts must be a whole number (0 or more), got -1',
      'backgroundAgentTools: agentTypes.t.supervision.maxRestarts must be a whole number (0 or more), got 1.5',
      'backgroundAgentTools: agentTypes.t.supervision.backoffMs must be a whole number of milliseconds from 0 to 2147483647, got NaN',
      'backgroundAgentTools: agentTypes.t.supervision.backoffMs must be a whole number of milliseconds from 0 to 2147483647, got Infinity',
      "backgroundAgentTools: supervision must be a supervision policy ({ restart: 'never' | 'on-failure', maxRestarts?, backoffMs? }), got \"on-failure\"",
      'backgroundAgentTools: unknown option "supervison" (did you mean "supervision"?)',
      'accepted',
    ]);
  });
});
