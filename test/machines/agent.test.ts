// The agent chart on its own, with pure `initialTransition`/`transition`: lifecycle, rollback order,
// dispose sequence and the inbox rules, read from the state, context and requested actions.
import { describe, expect, it } from 'vitest';
import { initialTransition, type SnapshotFrom, transition } from 'xstate';
import { type AgentEvent, type AgentInput, agentMachine } from '../../src/machines/agent.ts';
import type { InboxItem } from '../../src/machines/inbox.ts';
import { emptyUsage } from '../../src/providers/types.ts';

type Snapshot = SnapshotFrom<typeof agentMachine>;
type Action = { type: string; params?: unknown };

/** An agent that starts MCP servers of its own: every setup and dispose stage runs. */
const input: AgentInput = {
  agentId: 'a',
  agentKey: 'agent:a',
  lastTurn: 0,
  inbox: [],
  limits: { maxSteps: 25, maxUnknownToolCalls: 2 },
  preStepEveryStep: false,
  startsServers: true,
  step: { model: 'm', maxParallelTools: 10, jitterKey: 'a' },
};

const created: AgentEvent[] = [
  { type: 'setup.done', stage: 'session' },
  { type: 'setup.done', stage: 'servers' },
  { type: 'setup.done', stage: 'tools', toolNames: ['probe'], systemHash: 'h' },
  { type: 'setup.done', stage: 'publish' },
];

function run(
  events: AgentEvent[],
  from?: Snapshot,
  start: AgentInput = input,
): { snapshot: Snapshot; actions: Action[] } {
  let snapshot: Snapshot;
  let actions: Action[] = [];
  if (from) snapshot = from;
  else [snapshot, actions] = initialTransition(agentMachine, start) as [Snapshot, Action[]];
  for (const event of events) {
    const [next, more] = transition(agentMachine, snapshot, event) as [Snapshot, Action[]];
    snapshot = next;
    actions = [...actions, ...more];
  }
  return { snapshot, actions };
}

const spawned = (actions: Action[]) =>
  actions
    .filter((action) => action.type === 'xstate.spawnChild')
    .map((action) => (action.params as { id: string }).id);
const logged = (actions: Action[]) =>
  actions
    .filter((action) => action.type === 'log')
    .map((action) => action.params as { type: string; data: unknown });
const sent = (actions: Action[]) =>
  actions
    .filter((action) => action.type === 'xstate.sendTo')
    .map((action) => (action.params as { event: { type: string } }).event);
const contextUsage = { usedTokens: 0, contextWindow: 1_000 };
const ids = (items: InboxItem[]) => items.map((item) => item.id);
const turnDone = (unclaimed: InboxItem[] = []): AgentEvent => ({
  type: 'xstate.done.actor.turn',
  output: { turn: 1, reason: 'canceled', usage: emptyUsage, unclaimed, contextUsage, compactionTried: false },
});
const steer = (id: string): AgentEvent => ({ type: 'agent.steer', id, message: id });
const inject = (id: string): AgentEvent => ({ type: 'agent.inject', id, message: id });
const followup = (id: string): AgentEvent => ({ type: 'agent.followup', id, message: id });

describe('agent chart: creation and rollback (pure transitions)', () => {
  it('runs the setup stages in order and records each one', () => {
    const { snapshot, actions } = run(created);
    expect(snapshot.value).toEqual({ ready: 'idle' });
    expect(snapshot.context.completedStages).toEqual(['session', 'servers', 'tools', 'publish']);
    expect(snapshot.context.toolNames).toEqual(['probe']);
    expect(spawned(actions)).toEqual(['stage', 'stage', 'stage', 'stage']);
    // Each state runs its own stage, and every spawned actor is told which agent it works for.
    const inputs = actions
      .filter((action) => action.type === 'xstate.spawnChild')
      .map((action) => (action.params as { input: unknown }).input);
    expect(inputs).toEqual([
      { agentKey: 'agent:a', stage: 'session' },
      { agentKey: 'agent:a', stage: 'servers' },
      { agentKey: 'agent:a', stage: 'tools' },
      { agentKey: 'agent:a', stage: 'publish' },
    ]);
  });

  it('an agent that starts no MCP servers never enters the servers stages: no actor, no undo', () => {
    const { startsServers: _, ...serverless } = input;
    const { snapshot, actions } = run([created[0]!, created[2]!, created[3]!], undefined, serverless);
    expect(snapshot.value).toEqual({ ready: 'idle' });
    expect(snapshot.context.completedStages).toEqual(['session', 'tools', 'publish']);
    expect(spawned(actions)).toEqual(['stage', 'stage', 'stage']);
    const disposing = run([{ type: 'agent.dispose' }, { type: 'log.flushed' }], snapshot);
    expect(disposing.snapshot.value).toEqual({ disposing: 'revoking' });
    expect(spawned(disposing.actions)).toEqual(['flush', 'revoke']);
  });

  it('a failure undoes exactly the completed stages in reverse, then ends failed with the error', () => {
    const error = new Error('publish refused');
    const { snapshot, actions } = run([
      created[0]!,
      created[1]!,
      created[2]!,
      { type: 'setup.error', stage: 'publish', error },
      { type: 'undo.done', stage: 'tools' },
      { type: 'undo.done', stage: 'servers' },
      { type: 'undo.done', stage: 'session' },
    ]);
    expect(spawned(actions).filter((id) => id.startsWith('undo:'))).toEqual([
      'undo:tools',
      'undo:servers',
      'undo:session',
    ]);
    expect(snapshot.value).toBe('failed');
    expect(snapshot.context.creationError).toBe(error);
  });

  it('a failure of the first stage has nothing to undo and ends failed at once', () => {
    const { snapshot, actions } = run([{ type: 'setup.error', stage: 'session', error: 'disk' }]);
    expect(snapshot.value).toBe('failed');
    expect(spawned(actions)).toEqual(['stage']);
  });

  it('a dispose during creation lets the running stage finish, then rolls it back and ends disposed', () => {
    const asked = run([created[0]!, created[1]!, { type: 'agent.dispose' }]);
    expect(asked.snapshot.value).toEqual({ creating: 'tools' });
    // The running stage is told to stop waiting (its sessionStart hooks), not stopped: it still answers.
    expect(sent(asked.actions)).toEqual([{ type: 'setup.abort' }]);
    const { snapshot, actions } = run(
      [
        created[2]!,
        { type: 'undo.done', stage: 'tools' },
        { type: 'undo.done', stage: 'servers' },
        { type: 'undo.done', stage: 'session' },
      ],
      asked.snapshot,
    );
    expect(spawned(actions)).toEqual(['undo:tools', 'undo:servers', 'undo:session']);
    expect(snapshot.value).toBe('disposed');
    expect(snapshot.context.creationError).toBe('disposed during creation');
  });
});

describe('agent chart: inbox (pure transitions)', () => {
  const idle = run(created).snapshot;

  it('inject waits without waking an idle agent; steer and followup wake it', () => {
    const injected = run([inject('i1')], idle);
    expect(injected.snapshot.value).toEqual({ ready: 'idle' });
    expect(ids(injected.snapshot.context.inbox)).toEqual(['i1']);
    expect(logged(injected.actions)).toEqual([
      { type: 'inbox.queued', data: { id: 'i1', channel: 'inject', message: 'i1' } },
    ]);
    for (const wake of [steer('s1'), followup('f1')]) {
      const woken = run([inject('i1'), wake], idle);
      expect(woken.snapshot.value).toEqual({ ready: 'running' });
      expect(spawned(woken.actions)).toEqual(['turn']);
      // The turn takes everything waiting, the inject included.
      expect(woken.snapshot.context.inbox).toEqual([]);
    }
  });

  it('while running, followups wait for the next turn and steer/inject go to the turn', () => {
    const running = run([followup('f1')], idle).snapshot;
    const { snapshot, actions } = run([followup('f2'), steer('s1'), inject('i1')], running);
    expect(ids(snapshot.context.inbox)).toEqual(['f2']);
    expect(sent(actions)).toEqual([
      { type: 'inbox.nextStep', items: [{ id: 's1', channel: 'steer', message: 's1' }] },
      { type: 'inbox.nextStep', items: [{ id: 'i1', channel: 'inject', message: 'i1' }] },
    ]);
    expect(logged(actions).map((entry) => entry.type)).toEqual([
      'inbox.queued',
      'inbox.queued',
      'inbox.queued',
    ]);
    const next = run([turnDone()], snapshot);
    expect(next.snapshot.value).toEqual({ ready: 'running' });
    expect(next.snapshot.context.lastTurn).toBe(2);
  });

  it('after a cancel queued input is held (not dropped), unclaimed items go back to the front', () => {
    const running = run([followup('f1')], idle).snapshot;
    const canceled = run([followup('f2'), { type: 'agent.cancel', cause: 'user' }], running);
    expect(sent(canceled.actions)).toEqual([{ type: 'turn.cancel', cause: 'user' }]);
    expect(canceled.snapshot.context.held).toBe(true);
    const unclaimed: InboxItem = { id: 's1', channel: 'steer', message: 's1' };
    const ended = run([turnDone([unclaimed])], canceled.snapshot);
    expect(ended.snapshot.value).toEqual({ ready: 'idle' });
    expect(ids(ended.snapshot.context.inbox)).toEqual(['s1', 'f2']);
    // An inject does not release held input; new waking input does, and the turn takes it all.
    const stillHeld = run([inject('i1')], ended.snapshot);
    expect(stillHeld.snapshot.value).toEqual({ ready: 'idle' });
    const woken = run([followup('f3')], stillHeld.snapshot);
    expect(woken.snapshot.value).toEqual({ ready: 'running' });
    expect(woken.snapshot.context.held).toBe(false);
    const turnSpawn = woken.actions.find((action) => action.type === 'xstate.spawnChild');
    expect(turnSpawn).toBeDefined();
    const turnInput = (turnSpawn!.params as { input: { followups: InboxItem[]; nextStep: InboxItem[] } })
      .input;
    expect([ids(turnInput.followups), ids(turnInput.nextStep)]).toEqual([
      ['f2', 'f3'],
      ['s1', 'i1'],
    ]);
  });

  it('a cancel in idle holds what is queued; clearInbox logs inbox.cleared and empties it', () => {
    const held = run([inject('i1'), { type: 'agent.cancel', cause: 'user' }], idle);
    expect(held.snapshot.context.held).toBe(true);
    expect(ids(held.snapshot.context.inbox)).toEqual(['i1']);
    const cleared = run([{ type: 'agent.cancel', cause: 'user', clearInbox: true }], held.snapshot);
    // The cancel is logged with who asked, before what it does.
    expect(logged(cleared.actions)).toEqual([
      { type: 'cancel.requested', data: { by: 'user', clearInbox: true } },
      { type: 'inbox.cleared', data: { ids: ['i1'] } },
    ]);
    expect(cleared.snapshot.context.inbox).toEqual([]);
  });
});

describe('agent chart: dispose (pure transitions)', () => {
  const idle = run(created, undefined, { ...input, sessionEndHooks: true }).snapshot;

  it('without sessionEnd hooks: logs session.end and flushes at once (no hook actor), closes, revokes', () => {
    const plain = run(created).snapshot;
    const flushing = run([{ type: 'agent.dispose' }], plain);
    expect(flushing.snapshot.value).toEqual({ disposing: 'flushing' });
    expect(spawned(flushing.actions)).toEqual(['flush']);
    expect(logged(flushing.actions)).toEqual([{ type: 'session.end', data: { reason: 'disposed' } }]);
    const running = run([followup('f1')], plain).snapshot;
    const quiescing = run([{ type: 'agent.dispose' }], running).snapshot;
    expect(run([turnDone()], quiescing).snapshot.value).toEqual({ disposing: 'flushing' });
  });

  it('from idle: tells the sessionEnd hooks, logs session.end, flushes, closes the MCP servers, revokes, ends disposed', () => {
    const ending = run([{ type: 'agent.dispose' }], idle);
    expect(ending.snapshot.value).toEqual({ disposing: 'endingSession' });
    expect(spawned(ending.actions)).toEqual(['hook']);
    const decision = { point: 'sessionEnd' as const, hook: 'h', outcome: 'pass' as const };
    const flushing = run([{ type: 'hook.sessionEnd', decisions: [decision] }], ending.snapshot);
    expect(flushing.snapshot.value).toEqual({ disposing: 'flushing' });
    expect(logged(flushing.actions)).toEqual([
      { type: 'hook.decided', data: decision },
      { type: 'session.end', data: { reason: 'disposed' } },
    ]);
    expect(spawned(flushing.actions)).toEqual(['flush']);
    const closing = run([{ type: 'log.flushed' }], flushing.snapshot);
    expect(closing.snapshot.value).toEqual({ disposing: 'closing' });
    expect(spawned(closing.actions)).toEqual(['close']);
    const revoking = run([{ type: 'servers.closed' }], closing.snapshot);
    expect(revoking.snapshot.value).toEqual({ disposing: 'revoking' });
    const done = run([{ type: 'revoke.done' }], revoking.snapshot);
    expect(done.snapshot.value).toBe('disposed');
    expect(done.snapshot.status).toBe('done');
  });

  it('from running: cancels the turn with cause disposed and waits for it before flushing', () => {
    const running = run([followup('f1')], idle).snapshot;
    const quiescing = run([{ type: 'agent.dispose' }, followup('late')], running);
    expect(quiescing.snapshot.value).toEqual({ disposing: 'quiescing' });
    expect(sent(quiescing.actions)).toEqual([{ type: 'turn.cancel', cause: 'disposed' }]);
    // Input after dispose is refused by the chart (and by the handle before it).
    expect(quiescing.snapshot.context.inbox).toEqual([]);
    const ending = run([turnDone()], quiescing.snapshot);
    expect(ending.snapshot.value).toEqual({ disposing: 'endingSession' });
    const flushing = run([{ type: 'hook.sessionEnd', decisions: [] }], ending.snapshot);
    expect(flushing.snapshot.value).toEqual({ disposing: 'flushing' });
  });
});

describe('agent chart: background children a resume brings back (pure transitions)', () => {
  const turnInputOf = (actions: Action[]) =>
    actions
      .filter((action) => action.type === 'xstate.spawnChild')
      .map((action) => action.params as { id: string; input: { owed?: string[] } })
      .find((params) => params.id === 'turn')?.input;
  const result = (from: string): AgentEvent => ({
    type: 'agent.mail',
    id: `m-${from}`,
    from,
    kind: 'result',
    message: `Agent ${from} finished (completed):\nok`,
  });
  const adopt = (id: string, wait = true): AgentEvent => ({ type: 'agent.childStarted', id, wait });

  it('children adopted while no turn runs are owed by the next turn that input starts, except one it hears', () => {
    const { snapshot: idle } = run([...created, adopt('c1'), adopt('c2'), adopt('c3', false)]);
    expect(idle.context.children.owedToNextTurn).toEqual(['c1', 'c2']);
    const { snapshot, actions } = run([result('c1')], idle);
    expect(turnInputOf(actions)?.owed).toEqual(['c2']);
    expect(snapshot.context.children.owedToNextTurn).toEqual([]);
  });

  it('a child that ends before the next turn is owed by none', () => {
    const { actions } = run([
      ...created,
      adopt('c1'),
      { type: 'agent.childEnded', id: 'c1' },
      followup('f1'),
    ]);
    expect(turnInputOf(actions)?.owed).toBeUndefined();
  });
});
