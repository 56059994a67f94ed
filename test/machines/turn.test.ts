// The turn chart on its own, with pure `initialTransition`/`transition`: no actors run, we read the
// state, the context and the actions it asks for (log entries, spawned children, sent events).
import { describe, expect, it } from 'vitest';
import { initialTransition, type SnapshotFrom, transition } from 'xstate';
import type { InboxItem } from '../../src/machines/inbox.ts';
import type { StepOutcome } from '../../src/machines/step.ts';
import { type TurnEvent, type TurnInput, turnMachine } from '../../src/machines/turn.ts';
import { emptyUsage } from '../../src/providers/types.ts';

type Snapshot = SnapshotFrom<typeof turnMachine>;
type Action = { type: string; params?: unknown };

const usage = { ...emptyUsage, inputTokens: 2, outputTokens: 3 };
const followup: InboxItem = { id: 'f1', channel: 'followup', message: 'go' };
const steer: InboxItem = { id: 's1', channel: 'steer', message: 'look left' };

function input(overrides: Partial<TurnInput> = {}): TurnInput {
  return {
    agentKey: 'agent:a',
    turn: 1,
    followups: [followup],
    nextStep: [],
    limits: { maxSteps: 3, maxUnknownToolCalls: 2 },
    preStepEveryStep: false,
    step: { model: 'm', toolNames: ['probe'], systemHash: 'h', maxParallelTools: 10, jitterKey: 'a' },
    ...overrides,
  };
}

const stepDone = (outcome: StepOutcome, toolCalls = 0, unknownTools = 0): TurnEvent => ({
  type: 'step.done',
  output: { outcome, toolCalls, unknownTools, usage },
});

/** Applies events in order; returns the last snapshot and every action asked for on the way. */
function run(events: TurnEvent[], turnInput = input()): { snapshot: Snapshot; actions: Action[] } {
  let [snapshot, actions] = initialTransition(turnMachine, turnInput) as [Snapshot, Action[]];
  for (const event of events) {
    const [next, more] = transition(turnMachine, snapshot, event) as [Snapshot, Action[]];
    snapshot = next;
    actions = [...actions, ...more];
  }
  return { snapshot, actions };
}

const logged = (actions: Action[]) =>
  actions
    .filter((action) => action.type === 'log')
    .map((action) => action.params as { type: string; data: unknown });
const loggedTypes = (actions: Action[]) => logged(actions).map((entry) => entry.type);
const turnEnd = (actions: Action[]) => logged(actions).find((entry) => entry.type === 'turn.end')?.data;
const sent = (actions: Action[]) =>
  actions
    .filter((action) => action.type === 'xstate.sendTo')
    .map((action) => (action.params as { event: { type: string } }).event);
const spawned = (actions: Action[]) =>
  actions
    .filter((action) => action.type === 'xstate.spawnChild')
    .map((action) => (action.params as { id: string }).id);

describe('turn chart (pure transitions)', () => {
  it('waits in created, then logs turn.start, claims the follow-ups, spawns the step actor and begins step 1', () => {
    const { snapshot: created, actions: none } = run([]);
    expect(created.value).toBe('created');
    expect(none).toEqual([]);
    const { snapshot, actions } = run([{ type: 'turn.begin' }]);
    expect(snapshot.value).toBe('stepping');
    expect(logged(actions)).toEqual([
      { type: 'turn.start', turn: 1, data: {} },
      { type: 'inbox.claimed', turn: 1, data: { ids: ['f1'] } },
      { type: 'user.message', turn: 1, data: { channel: 'followup', content: 'go', inboxId: 'f1' } },
    ]);
    expect(spawned(actions)).toEqual(['step']);
    expect(sent(actions)).toEqual([{ type: 'step.begin', step: 1 }]);
    expect(snapshot.context.stepCount).toBe(1);
  });

  it('takes another step after tool results or a pause, and completes on a final answer', () => {
    const { snapshot, actions } = run([{ type: 'turn.begin' }, stepDone('tools', 2), stepDone('continue')]);
    expect(snapshot.value).toBe('stepping');
    expect(snapshot.context.stepCount).toBe(3);
    // One step actor serves the whole turn; each step starts by event.
    expect(spawned(actions)).toEqual(['step']);
    expect(sent(actions)).toEqual([1, 2, 3].map((step) => ({ type: 'step.begin', step })));
    const done = run([
      { type: 'turn.begin' },
      stepDone('tools', 1),
      stepDone('final'),
      { type: 'log.flushed' },
    ]);
    expect(done.snapshot.status).toBe('done');
    expect(turnEnd(done.actions)).toEqual({
      reason: 'completed',
      usage: { ...usage, inputTokens: 4, outputTokens: 6 },
    });
    expect(done.snapshot.output).toEqual({
      turn: 1,
      reason: 'completed',
      usage: { ...usage, inputTokens: 4, outputTokens: 6 },
      unclaimed: [],
      contextUsage: { usedTokens: 0, contextWindow: Number.MAX_SAFE_INTEGER },
      compactionTried: false,
    });
  });

  it('writes turn.end and waits for the flush before it reports', () => {
    const { snapshot, actions } = run([{ type: 'turn.begin' }, stepDone('final')]);
    expect(snapshot.value).toBe('ending');
    expect(spawned(actions)).toEqual(['step', 'flush']);
    expect(snapshot.status).toBe('active');
  });

  it('stops at max_steps when the limit is reached and the model still wants to go on', () => {
    const { snapshot, actions } = run([
      { type: 'turn.begin' },
      stepDone('tools', 1),
      stepDone('tools', 1),
      stepDone('tools', 1),
    ]);
    expect(snapshot.value).toBe('ending');
    expect(turnEnd(actions)).toMatchObject({ reason: 'max_steps' });
    // A final answer on the last allowed step is a normal completion, not a limit.
    const last = run([{ type: 'turn.begin' }, stepDone('tools', 1), stepDone('tools', 1), stepDone('final')]);
    expect(turnEnd(last.actions)).toMatchObject({ reason: 'completed' });
  });

  it('stops at unknown_tool_limit after consecutive all-unknown steps; a mixed step resets the count', () => {
    const limited = run([{ type: 'turn.begin' }, stepDone('tools', 1, 1), stepDone('tools', 2, 2)]);
    expect(turnEnd(limited.actions)).toMatchObject({ reason: 'unknown_tool_limit' });
    const reset = run([
      { type: 'turn.begin' },
      stepDone('tools', 1, 1),
      stepDone('tools', 2, 1),
      stepDone('tools', 1, 1),
    ]);
    expect(reset.snapshot.value).toBe('ending');
    expect(reset.snapshot.context.consecutiveUnknown).toBe(1);
    expect(turnEnd(reset.actions)).toMatchObject({ reason: 'max_steps' });
  });

  it('ends with model_error (with the error) and with max_tokens', () => {
    const error = { kind: 'auth' as const, message: 'bad key', retryable: false };
    const failed = run([
      { type: 'turn.begin' },
      {
        type: 'step.done',
        output: { outcome: 'model_error', toolCalls: 0, unknownTools: 0, usage, error },
      },
    ]);
    expect(turnEnd(failed.actions)).toEqual({ reason: 'model_error', usage, error });
    const cut = run([{ type: 'turn.begin' }, stepDone('max_tokens')]);
    expect(turnEnd(cut.actions)).toEqual({ reason: 'max_tokens', usage });
  });

  it('runs the pre-step hook before every step: allow steps on, a veto blocks the turn', () => {
    const hooked = input({ preStepEveryStep: true });
    const waiting = run([{ type: 'turn.begin' }], hooked);
    expect(waiting.snapshot.value).toEqual({ preStep: 'hook' });
    // The step actor is spawned with the turn; the hook runs before step 1 begins.
    expect(spawned(waiting.actions)).toEqual(['step', 'hook']);
    expect(sent(waiting.actions)).toEqual([]);
    const allowed = run([{ type: 'turn.begin' }, { type: 'hook.allow' }, stepDone('tools', 1)], hooked);
    expect(allowed.snapshot.value).toEqual({ preStep: 'hook' });
    const vetoed = run(
      [
        { type: 'turn.begin' },
        { type: 'hook.allow' },
        stepDone('tools', 1),
        { type: 'hook.veto', reason: 'budget' },
      ],
      hooked,
    );
    expect(turnEnd(vetoed.actions)).toEqual({ reason: 'blocked', usage, vetoReason: 'budget' });
  });

  it('logs MCP tool list changes the pre-step work found, and the next step begins with the new tools', () => {
    const hooked = input({ preStepEveryStep: true });
    const tool = {
      name: 'mcp__s__later',
      tool: 'later',
      description: 'Added.',
      inputSchema: { type: 'object' },
      access: 'read' as const,
    };
    const tools = {
      changes: [{ server: 's', tools: [tool] }],
      toolNames: ['mcp__s__later'],
      systemHash: 'h2',
    };
    const allowed = run([{ type: 'turn.begin' }, { type: 'hook.allow', tools }], hooked);
    const entries = logged(allowed.actions) as { type: string; turn?: number; step?: number }[];
    expect(entries.map((entry) => [entry.type, entry.turn, entry.step])).toEqual([
      ['turn.start', 1, undefined],
      ['inbox.claimed', 1, undefined],
      ['user.message', 1, undefined],
      ['mcp.tools', 1, 1],
    ]);
    expect(logged(allowed.actions).at(-1)!.data).toEqual({ server: 's', tools: [tool] });
    expect(sent(allowed.actions)).toEqual([
      { type: 'step.begin', step: 1, tools: { toolNames: ['mcp__s__later'], systemHash: 'h2' } },
    ]);
    expect(allowed.snapshot.context.step.toolNames).toEqual(['mcp__s__later']);
    // A veto still logs the change the pre-step work applied.
    const vetoed = run([{ type: 'turn.begin' }, { type: 'hook.veto', reason: 'no', tools }], hooked);
    expect(loggedTypes(vetoed.actions).slice(-2)).toEqual(['mcp.tools', 'turn.end']);
  });

  it('cancels from every state: created, hook, stepping (through the step), ending is unaffected', () => {
    const created = run([{ type: 'turn.cancel', cause: 'parent' }]);
    expect(turnEnd(created.actions)).toEqual({ reason: 'canceled', usage: emptyUsage, cause: 'parent' });
    expect(loggedTypes(created.actions)).toEqual(['turn.end']);
    const hook = run(
      [{ type: 'turn.begin' }, { type: 'turn.cancel', cause: 'user' }],
      input({ preStepEveryStep: true }),
    );
    expect(turnEnd(hook.actions)).toMatchObject({ reason: 'canceled', cause: 'user' });
    const stepping = run([{ type: 'turn.begin' }, { type: 'turn.cancel', cause: 'user' }]);
    expect(stepping.snapshot.value).toBe('stepping');
    expect(sent(stepping.actions)).toEqual([{ type: 'step.begin', step: 1 }, { type: 'step.cancel' }]);
    // Whatever the step reports after a cancel, the turn ends canceled with the first cause.
    const ended = run([
      { type: 'turn.begin' },
      { type: 'turn.cancel', cause: 'user' },
      { type: 'turn.cancel', cause: 'disposed' },
      stepDone('tools', 1),
    ]);
    expect(turnEnd(ended.actions)).toMatchObject({ reason: 'canceled', cause: 'user' });
    const ending = run([{ type: 'turn.begin' }, stepDone('final'), { type: 'turn.cancel', cause: 'user' }]);
    expect(ending.snapshot.value).toBe('ending');
    expect(loggedTypes(ending.actions).filter((type) => type === 'turn.end')).toHaveLength(1);
  });

  it('claims next-step input before the next step, as user messages on their channel', () => {
    const { snapshot, actions } = run([
      { type: 'turn.begin' },
      { type: 'inbox.nextStep', items: [steer] },
      stepDone('final'),
    ]);
    expect(snapshot.value).toBe('stepping');
    expect(snapshot.context.stepCount).toBe(2);
    expect(logged(actions).slice(-2)).toEqual([
      { type: 'inbox.claimed', turn: 1, data: { ids: ['s1'] } },
      { type: 'user.message', turn: 1, data: { channel: 'steer', content: 'look left', inboxId: 's1' } },
    ]);
    const early = run([{ type: 'turn.begin' }], input({ nextStep: [steer] }));
    expect(loggedTypes(early.actions)).toEqual([
      'turn.start',
      'inbox.claimed',
      'user.message',
      'inbox.claimed',
      'user.message',
    ]);
  });

  it('returns next-step input it never claimed as unclaimed output (a cancel drops nothing)', () => {
    const { snapshot } = run([
      { type: 'turn.begin' },
      { type: 'inbox.nextStep', items: [steer] },
      { type: 'turn.cancel', cause: 'user' },
      stepDone('canceled'),
      { type: 'inbox.nextStep', items: [{ id: 'i1', channel: 'inject', message: 'fyi' }] },
      { type: 'log.flushed' },
    ]);
    expect(snapshot.status).toBe('done');
    expect(snapshot.output?.reason).toBe('canceled');
    expect(snapshot.output?.unclaimed.map((item) => item.id)).toEqual(['s1', 'i1']);
  });

  it("checks a typed turn's final answer: logged, fed back while retries last, then invalid_output", () => {
    const output = { schema: { type: 'object' }, maxRetries: 1, inboxId: 'f1' };
    const typed = input({ output });
    const start = run([{ type: 'turn.begin' }], typed);
    expect(logged(start.actions)[0]).toEqual({
      type: 'turn.start',
      turn: 1,
      data: { output: { schema: { type: 'object' }, maxRetries: 1 } },
    });
    const checking = run([{ type: 'turn.begin' }, stepDone('final')], typed);
    expect(checking.snapshot.value).toBe('checkingOutput');
    expect(spawned(checking.actions)).toEqual(['step', 'check']);
    const invalid: TurnEvent = { type: 'output.checked', valid: false, error: 'not JSON' };
    const retried = run([{ type: 'turn.begin' }, stepDone('final'), invalid], typed);
    expect(retried.snapshot.value).toBe('stepping');
    expect(logged(retried.actions).slice(3)).toEqual([
      { type: 'output.checked', turn: 1, step: 1, data: { valid: false, attempt: 1, error: 'not JSON' } },
    ]);
    expect(sent(retried.actions).at(-1)).toEqual({ type: 'step.begin', step: 2 });
    const failed = run(
      [{ type: 'turn.begin' }, stepDone('final'), invalid, stepDone('final'), invalid],
      typed,
    );
    expect(failed.snapshot.value).toBe('ending');
    expect(turnEnd(failed.actions)).toEqual({
      reason: 'invalid_output',
      usage: { ...usage, inputTokens: 4, outputTokens: 6 },
    });
    const valid = run(
      [
        { type: 'turn.begin' },
        stepDone('final'),
        invalid,
        stepDone('final'),
        { type: 'output.checked', valid: true },
      ],
      typed,
    );
    expect(
      logged(valid.actions)
        .filter((entry) => entry.type === 'output.checked')
        .at(-1)?.data,
    ).toEqual({
      valid: true,
      attempt: 2,
    });
    expect(turnEnd(valid.actions)).toMatchObject({ reason: 'completed' });
    // A turn resumed after a failed check counts it: with one retry allowed, the next failure ends it.
    const resumed = input({ output: { ...output, failures: 1 } });
    const ended = run([{ type: 'turn.begin' }, stepDone('final'), invalid], resumed);
    expect(logged(ended.actions).at(-2)?.data).toEqual({ valid: false, attempt: 2, error: 'not JSON' });
    expect(turnEnd(ended.actions)).toMatchObject({ reason: 'invalid_output' });
    // A free-text turn never checks.
    expect(run([{ type: 'turn.begin' }, stepDone('final')]).snapshot.value).toBe('ending');
  });

  describe('waiting for background children', () => {
    const result = (from: string): InboxItem => ({
      id: `m-${from}`,
      channel: 'steer',
      message: `Agent ${from} finished (completed):\nok`,
      from,
      kind: 'result',
    });

    it('flushes the log on the way into waitingForAgents, so a crash while it waits finds the answer', () => {
      const { snapshot, actions } = run([
        { type: 'turn.begin' },
        { type: 'agents.owe', id: 'c1' },
        stepDone('final'),
      ]);
      expect(snapshot.value).toBe('waitingForAgents');
      expect(spawned(actions)).toEqual(['step', 'flush']);
      expect(loggedTypes(actions)).not.toContain('turn.end');
    });

    it('a turn resumed while it waited goes on waiting, logs nothing, and steps again when the child reports', () => {
      const resumed: TurnEvent = { type: 'turn.resumeWaiting', step: 2, usage, owed: ['c1', 'c2'] };
      const { snapshot, actions } = run([resumed], input({ followups: [] }));
      expect(snapshot.value).toBe('waitingForAgents');
      expect(snapshot.context).toMatchObject({
        stepCount: 2,
        usage,
        owed: ['c1', 'c2'],
        lastOutcome: 'final',
      });
      expect(logged(actions)).toEqual([]);
      expect(spawned(actions)).toEqual(['step', 'flush']);
      const heard = run(
        [resumed, { type: 'inbox.nextStep', items: [result('c1')] }],
        input({ followups: [] }),
      );
      expect(heard.snapshot.value).toBe('stepping');
      expect(heard.snapshot.context.owed).toEqual(['c2']);
      expect(sent(heard.actions)).toEqual([{ type: 'step.begin', step: 3 }]);
      expect(logged(heard.actions).map((entry) => entry.type)).toEqual(['inbox.claimed', 'user.message']);
      // A child that ends without a result (stopped, or lost to the crash) is owed no more.
      const gone = run(
        [resumed, { type: 'agents.heard', id: 'c1' }, { type: 'agents.heard', id: 'c2' }],
        input({ followups: [] }),
      );
      expect(gone.snapshot.value).toBe('ending');
      expect(turnEnd(gone.actions)).toMatchObject({ reason: 'completed', usage });
    });

    it('a resumed wait with mail already queued takes it in a step at once', () => {
      const { snapshot, actions } = run(
        [{ type: 'turn.resumeWaiting', step: 1, usage, owed: ['c1'] }],
        input({ followups: [], nextStep: [result('c1')] }),
      );
      expect(snapshot.value).toBe('stepping');
      expect(snapshot.context.owed).toEqual(['c1']);
      expect(sent(actions)).toEqual([{ type: 'step.begin', step: 2 }]);
    });

    it('a turn given children to wait for from its start (a resume brought them back) waits for them', () => {
      const { snapshot } = run([{ type: 'turn.begin' }, stepDone('final')], input({ owed: ['c1'] }));
      expect(snapshot.value).toBe('waitingForAgents');
      expect(snapshot.context.owed).toEqual(['c1']);
    });
  });
});
