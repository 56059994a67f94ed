// The agent chart's event catalogue: the input its suite starts from and what can happen in each state
// (the creation stages, rollback, the inbox while ready, a turn's end, the dispose stages), with sample
// payloads, the bounded key and the labels of a path's events.
import type { SnapshotFrom } from 'xstate';
import type { AgentEvent, AgentInput, agentMachine, SetupStage } from '../../../src/machines/agent.ts';
import { emptyUsage } from '../../../src/providers/types.ts';

export type AgentSnapshot = SnapshotFrom<typeof agentMachine>;

/**
 * The input the suite's agent starts from; with `sessionEndHooks`, dispose waits for those hooks; with
 * `startsServers`, creation has a servers stage and dispose a `closing` one (else it skips both); with
 * `isolated`, creation has a worktree stage and dispose a `finishingWorktree` one (else neither).
 */
export const agentInput = (sessionEndHooks = false, startsServers = false, isolated = false): AgentInput => ({
  agentId: 'a',
  agentKey: 'agent:a',
  lastTurn: 0,
  inbox: [],
  limits: { maxSteps: 25, maxUnknownToolCalls: 2 },
  preStepEveryStep: false,
  step: { model: 'gate-model', maxParallelTools: 10, jitterKey: 'a' },
  ...(sessionEndHooks ? { sessionEndHooks } : {}),
  ...(startsServers ? { startsServers } : {}),
  ...(isolated ? { isolated } : {}),
});

/** The stage a `creating` state runs. */
export const stageOf = (snapshot: AgentSnapshot): SetupStage =>
  Object.values(snapshot.value)[0] as SetupStage;
/** The stage a rollback undoes next: the last one completed. */
export const lastStage = (snapshot: AgentSnapshot) => snapshot.context.completedStages.at(-1);

/** What a turn reports when it ends (the agent reads only that it ended). */
const turnOutput = {
  ...{ turn: 1, reason: 'completed' as const, usage: emptyUsage, unclaimed: [] },
  ...{ contextUsage: { usedTokens: 0, contextWindow: 32_000 }, compactionTried: false },
};

/**
 * The catalogue. Outside events (dispose, inbox, cancel) are offered only in states the runtime rests in;
 * `creating.publish` and rollback of tools/publish finish within one tick, so only their own outcome can
 * happen there.
 */
export function agentEvents(snapshot: AgentSnapshot): AgentEvent[] {
  const out: AgentEvent[] = [];
  if (snapshot.matches('creating')) {
    const stage = stageOf(snapshot);
    out.push({ type: 'setup.done', stage, toolNames: ['probe'], systemHash: 'h' });
    // The tools stage fails for real (a tool it cannot describe) at once: no dispose can come before it.
    if (stage !== 'tools' || !snapshot.context.disposeRequested)
      out.push({ type: 'setup.error', stage, error: new Error(`${stage} failed`) });
    // Without MCP servers the servers stage, like publish, completes within the tick that starts it.
    if (stage !== 'publish' && stage !== 'servers') out.push({ type: 'agent.dispose' });
  }
  if (snapshot.matches('rollingBack')) {
    const stage = lastStage(snapshot);
    if (stage) out.push({ type: 'undo.done', stage });
    if (stage === 'session') out.push({ type: 'agent.dispose' });
  }
  if (snapshot.matches('ready')) {
    out.push(
      { type: 'agent.followup', id: 'f', message: 'follow' },
      { type: 'agent.steer', id: 's', message: 'steer' },
      { type: 'agent.inject', id: 'i', message: 'inject' },
      { type: 'agent.cancel', cause: 'user' },
      { type: 'agent.compact' },
      { type: 'agent.dispose' },
    );
  }
  if (snapshot.matches({ ready: 'running' }) || snapshot.matches({ disposing: 'quiescing' }))
    out.push({ type: 'xstate.done.actor.turn', output: turnOutput });
  // No sessionEnd hooks are configured here: the hook wait answers at once (hooks are tested in test/hooks).
  if (snapshot.matches({ disposing: 'endingSession' })) out.push({ type: 'hook.sessionEnd', decisions: [] });
  if (snapshot.matches({ disposing: 'flushing' })) out.push({ type: 'log.flushed' });
  if (snapshot.matches({ disposing: 'closing' })) out.push({ type: 'servers.closed' });
  if (snapshot.matches({ disposing: 'finishingWorktree' })) out.push({ type: 'worktree.finished' });
  if (snapshot.matches({ disposing: 'revoking' })) out.push({ type: 'revoke.done' });
  return out;
}

/**
 * Bounded key: the state, the undo record, dispose/held flags, the channels waiting, next-step input
 * sent to a running turn, and a compaction asked for (a turn that only compacts, or one passed on).
 */
export function serializeAgent(snapshot: AgentSnapshot, event?: AgentEvent): string {
  const { completedStages, disposeRequested, held, inbox } = snapshot.context;
  const channels = [...new Set(inbox.map((item) => item.channel))].sort();
  const forwarded =
    snapshot.matches({ ready: 'running' }) &&
    (event?.type === 'agent.steer' || event?.type === 'agent.inject' || event?.type === 'agent.compact')
      ? event.type
      : '';
  return JSON.stringify([snapshot.value, completedStages, disposeRequested, held, channels, forwarded]);
}

/** An event as a path names it: the stage a setup event is about, else its type. */
export const labelAgentEvent = (event: AgentEvent) =>
  'stage' in event && event.type !== 'undo.done' ? `${event.type}:${event.stage}` : event.type;
