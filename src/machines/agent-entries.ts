// Pure helpers of the agent chart: what starts a turn, and the input a turn starts with. Kept beside the
// chart so the chart file reads as states.
import { extended } from '../core/extended.ts';
import type { AgentContext } from './agent-types.ts';
import { type InboxItem, isNextStepItem } from './inbox.ts';
import type { TurnInput } from './turn-types.ts';

/** Queued input that starts a turn: anything but injected notes, unless a cancel holds it back. */
export const hasWakingInput = (context: AgentContext) =>
  !context.held && context.inbox.some((item) => item.channel !== 'inject');

/** A turn's input: the agent's settings and where the session stands, with the queued input it takes. */
export function turnInput(context: AgentContext, turn: number, taken: readonly InboxItem[]): TurnInput {
  const { compaction, contextUsage, compactionTried, compactRequest } = context;
  return {
    agentKey: context.agentKey,
    turn,
    followups: taken.filter((item) => !isNextStepItem(item)),
    ...outputOf(taken),
    nextStep: taken.filter(isNextStepItem),
    limits: context.limits,
    preStepEveryStep: context.preStepEveryStep,
    toolsChanged: context.toolsChanged || context.preStepAtTurnStart === true,
    step: extended(context.step, { toolNames: context.toolNames, systemHash: context.systemHash }),
    compaction,
    contextUsage,
    compactionTried,
    ...(compactRequest ? { compactRequest } : {}),
  };
}

/** The output a typed follow-up among `taken` asks of the turn (`takenByTurn` lets at most one in). */
function outputOf(taken: readonly InboxItem[]): Pick<TurnInput, 'output'> {
  const typed = taken.find((item) => item.channel === 'followup' && item.output !== undefined);
  return typed?.output ? { output: { ...typed.output, inboxId: typed.id } } : {};
}
