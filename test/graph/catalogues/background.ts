// The catalogues of the charts' background-agent states: the turn's `waitingForAgents` and the agent's
// `disposing.releasingChildren` (and the release a cancel starts). One child, `k`, started by the first
// step (the turn waits for it) or, in the agent suite, with `wait: false` (the turn may end before it).
import type { AgentEvent, AgentInput, agentMachine } from '../../../src/machines/agent.ts';
import type { InboxItem } from '../../../src/machines/inbox.ts';
import type { TurnEvent, turnMachine } from '../../../src/machines/turn.ts';
import { emptyUsage } from '../../../src/providers/types.ts';
import type { ChartPath } from '../support/model.ts';
import { type AgentSnapshot, agentInput, stageOf } from './agent.ts';
import { stepDone, type TurnSnapshot, turnInput } from './turn.ts';

/** The child every path starts, by the session id the runtime gives it. */
export const child = 'id3';

const mail = (kind: 'result' | 'message'): InboxItem => ({
  id: 'm',
  channel: 'steer',
  message: kind,
  from: child,
  kind,
});

export const backgroundTurnInput = turnInput({
  limits: { maxSteps: 3, maxUnknownToolCalls: 2 },
  step: { toolNames: ['spawn_agent'] },
});

/** The step that spawned the child ends by itself once the call returns (its id at once). */
export const spawnedStep = { ...stepDone('tools'), spawned: true } as unknown as TurnEvent;

/**
 * The turn with one background child. The first step spawns it (`agents.owe`, then the step ends by itself);
 * later steps answer final. While the turn waits for the child: its result, a message from it, a stop (the
 * child gone without a result), or a cancel. The turn rests in `stepping` and `waitingForAgents`; `ending`
 * passes by itself (its flush is not held here: the turn suites hold it).
 */
export function backgroundTurnEvents(snapshot: TurnSnapshot): TurnEvent[] {
  const { cancelCause, owed, stepCount } = snapshot.context;
  if (snapshot.matches('created')) return [{ type: 'turn.begin' }];
  if (snapshot.matches('ending')) return [{ type: 'log.flushed' }];
  if (cancelCause) return snapshot.matches('stepping') ? [stepDone('canceled')] : [];
  if (snapshot.matches('stepping')) {
    if (stepCount === 1) return owed.length === 0 ? [{ type: 'agents.owe', id: child }] : [spawnedStep];
    return [stepDone('final'), { type: 'turn.cancel', cause: 'user' }];
  }
  if (snapshot.matches('waitingForAgents'))
    return [
      { type: 'inbox.nextStep', items: [mail('result')] },
      { type: 'inbox.nextStep', items: [mail('message')] },
      { type: 'agents.heard', id: child },
      { type: 'turn.cancel', cause: 'user' },
    ];
  return [];
}

/** Bounded key: the state, the step count, whom the turn owes, input waiting, a cancel, the reason. */
export function serializeBackgroundTurn(snapshot: TurnSnapshot): string {
  const { stepCount, owed, pending, cancelCause, reason } = snapshot.context;
  return JSON.stringify([
    snapshot.value,
    stepCount,
    owed,
    pending.length,
    cancelCause ?? null,
    reason ?? null,
  ]);
}

/** A typed run (one retry) whose turn also starts the child: its answer is checked once it owes nothing. */
export const typedBackgroundTurnInput = turnInput({
  limits: backgroundTurnInput.limits,
  step: { toolNames: ['spawn_agent'] },
  output: { schema: { type: 'object' }, maxRetries: 1, inboxId: 'id2' },
});

/** As `backgroundTurnEvents`, and in `checkingOutput` the check's verdict (valid, invalid) or a cancel. */
export function typedBackgroundTurnEvents(snapshot: TurnSnapshot): TurnEvent[] {
  if (!snapshot.matches('checkingOutput') || snapshot.context.cancelCause)
    return backgroundTurnEvents(snapshot);
  return [
    { type: 'output.checked', valid: true },
    { type: 'output.checked', valid: false, error: 'not what was asked for' },
    { type: 'turn.cancel', cause: 'user' },
  ];
}

/** `serializeBackgroundTurn`, with the failed checks and whether the last answer passed. */
export function serializeTypedBackgroundTurn(snapshot: TurnSnapshot): string {
  const { output } = snapshot.context;
  return JSON.stringify([serializeBackgroundTurn(snapshot), output?.failures, output?.accepted]);
}

export function labelBackgroundTurnEvent(event: TurnEvent): string {
  if (event.type === 'inbox.nextStep') return `mail:${event.items[0]?.kind}`;
  if (event.type === 'output.checked') return event.valid ? 'output:valid' : 'output:invalid';
  if (event.type === 'step.done')
    return (event as { spawned?: boolean }).spawned ? 'step:spawned' : `step:${event.output.outcome}`;
  return event.type;
}

export const backgroundAgentInput: AgentInput = agentInput();

const turnOutput = {
  ...{ turn: 1, reason: 'completed' as const, usage: emptyUsage, unclaimed: [] },
  ...{ contextUsage: { usedTokens: 0, contextWindow: 32_000 }, compactionTried: false },
};

/**
 * The agent with one background child started with `wait: false`: the turn that started it may end while
 * it runs. A cancel (the agent releases its children at once) or a dispose (through `quiescing` and
 * `releasingChildren`) may come with the turn running or the agent idle. The agent rests in `ready.idle`
 * and `ready.running` (its turn waiting for the model); the release, a cancelled turn's end and the dispose
 * stages pass by themselves.
 */
export function backgroundAgentEvents(snapshot: AgentSnapshot): AgentEvent[] {
  const { children, turnAlive, lastTurn, held } = snapshot.context;
  if (snapshot.matches('creating')) return [{ type: 'setup.done', stage: stageOf(snapshot) }];
  const live = children.live.length > 0;
  if (snapshot.matches('ready')) {
    if (lastTurn === 0) return [{ type: 'agent.followup', id: 'f', message: 'go' }];
    // A cancel's release and a cancelled turn's end pass by themselves: nothing from outside comes between.
    if (children.releasing) return [live ? ended : { type: 'children.released' }];
    if (turnAlive && held) return [{ type: 'xstate.done.actor.turn', output: turnOutput }];
    const out: AgentEvent[] = [];
    if (turnAlive && live) out.push({ type: 'xstate.done.actor.turn', output: turnOutput });
    if (turnAlive && !live) out.push({ type: 'agent.childStarted', id: child, wait: false });
    if (live) out.push({ type: 'agent.cancel', cause: 'user' });
    if (live || held) out.push({ type: 'agent.dispose' });
    return out;
  }
  if (snapshot.matches({ disposing: 'quiescing' }))
    return [{ type: 'xstate.done.actor.turn', output: turnOutput }];
  if (snapshot.matches({ disposing: 'releasingChildren' }))
    return [live ? ended : { type: 'children.released' }];
  if (snapshot.matches({ disposing: 'flushing' })) return [{ type: 'log.flushed' }];
  if (snapshot.matches({ disposing: 'closing' })) return [{ type: 'servers.closed' }];
  if (snapshot.matches({ disposing: 'revoking' })) return [{ type: 'revoke.done' }];
  return [];
}

const ended: AgentEvent = { type: 'agent.childEnded', id: child };

export function serializeBackgroundAgent(snapshot: AgentSnapshot): string {
  const { children, turnAlive, held, lastTurn, completedStages } = snapshot.context;
  return JSON.stringify([snapshot.value, completedStages.length, children, turnAlive, held, lastTurn]);
}

export function labelBackgroundAgentEvent(event: AgentEvent): string {
  if (event.type === 'xstate.done.actor.turn') return 'turn.done';
  if (event.type === 'setup.done') return `setup:${event.stage}`;
  return event.type;
}

export type BackgroundTurnPath = ChartPath<typeof turnMachine>;
export type BackgroundAgentPath = ChartPath<typeof agentMachine>;
