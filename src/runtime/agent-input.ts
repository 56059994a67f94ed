import type { AgentInput } from '../machines/agent.ts';
import type { RetryPolicy } from '../machines/retry-policy.ts';
import { nextTurnNumber, pendingInbox } from '../session/repair.ts';
import type { AgentOrigin } from './agent-resources.ts';
import type { Limits } from './options.ts';

/** The agent chart's input: where the session stands (turns, queued input) and how steps behave. */
export function agentInput(options: {
  agentId: string;
  /** The key the agent's ports are registered under (`AgentLogic.register`). */
  agentKey: string;
  origin: AgentOrigin;
  model: string;
  limits: Limits;
  hasPreStepHook: boolean;
  retry: RetryPolicy;
}): AgentInput {
  const { agentId, origin, limits } = options;
  const events =
    origin.kind === 'resume'
      ? [...origin.events, ...origin.repaired]
      : origin.kind === 'fork'
        ? origin.seed
        : [];
  return {
    agentId,
    agentKey: options.agentKey,
    lastTurn: nextTurnNumber(events) - 1,
    inbox: pendingInbox(events).map(({ id, channel, message }) => ({ id, channel, message })),
    limits,
    hasPreStepHook: options.hasPreStepHook,
    step: {
      model: options.model,
      retry: options.retry,
      maxParallelTools: limits.maxParallelTools,
      jitterKey: agentId,
    },
  };
}
