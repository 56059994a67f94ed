import type { AgentInput } from '../machines/agent.ts';
import type { CompactionPolicy } from '../machines/compaction-types.ts';
import type { HookFlags } from '../machines/hook-events.ts';
import type { RetryPolicy } from '../machines/retry-policy.ts';
import { lastContextUse } from '../session/context-tokens.ts';
import { nextTurnNumber, pendingInbox } from '../session/repair.ts';
import type { AgentOrigin } from './agent-plan.ts';
import type { Limits } from './options.ts';

/** The agent chart's input: where the session stands (turns, queued input, context) and how steps behave. */
export function agentInput(options: {
  agentId: string;
  /** The key the agent's ports are registered under (`AgentLogic.register`). */
  agentKey: string;
  origin: AgentOrigin;
  model: string;
  limits: Limits;
  /** Run the pre-step work before every step (a pre-step hook, or MCP servers whose tool lists change). */
  preStepEveryStep: boolean;
  /** Run the pre-step work before each turn's first step (the environment block). */
  preStepAtTurnStart: boolean;
  /** `sessionEnd` hooks run when this agent is disposed. */
  sessionEndHooks: boolean;
  /** The hook points that have hooks. */
  hooks: HookFlags;
  retry: RetryPolicy;
  compaction: CompactionPolicy;
  /** The model's context window, in tokens. */
  contextWindow: number;
}): AgentInput {
  const { agentId, origin, limits } = options;
  const events =
    origin.kind === 'resume'
      ? [...origin.events, ...origin.repaired]
      : origin.kind === 'fork'
        ? origin.seed
        : [];
  const { usedTokens, compactedSince } = lastContextUse(events);
  return {
    agentId,
    agentKey: options.agentKey,
    lastTurn: nextTurnNumber(events) - 1,
    inbox: pendingInbox(events).map(({ id, channel, message }) => ({ id, channel, message })),
    limits,
    preStepEveryStep: options.preStepEveryStep,
    preStepAtTurnStart: options.preStepAtTurnStart,
    ...(options.sessionEndHooks ? { sessionEndHooks: true } : {}),
    step: {
      model: options.model,
      retry: options.retry,
      maxParallelTools: limits.maxParallelTools,
      jitterKey: agentId,
      compactOnOverflow: options.compaction.enabled,
      ...(Object.keys(options.hooks).length > 0 ? { hooks: options.hooks } : {}),
    },
    compaction: options.compaction,
    // A resumed session knows its context from the last answered request in its log.
    contextUsage: { usedTokens, contextWindow: options.contextWindow },
    compactionTried: compactedSince,
    ...resumeOf(origin),
  };
}

/** A resumed session's turn that was left waiting, for the agent to continue. */
function resumeOf(origin: AgentOrigin): Pick<AgentInput, 'resume'> {
  const point = origin.kind === 'resume' ? origin.point : undefined;
  if (point?.kind !== 'waiting') return {};
  const { turn, step, usage, consecutiveUnknown, answer, calls } = point;
  return { resume: { turn, step, usage, consecutiveUnknown, answer, calls } };
}
