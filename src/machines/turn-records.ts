// Pure helpers of the turn chart: the context a turn starts with, what a finished step changes in it and
// what the turn reports to its agent. Kept beside the chart so the chart file reads as states.
import { addUsage, emptyUsage } from '../providers/types.ts';
import type { StepOutput } from './step-types.ts';
import {
  noCompaction,
  type TurnContext,
  type TurnInput,
  type TurnOutput,
  unknownContext,
} from './turn-types.ts';

/** A turn before its first step. */
export function turnContext(input: TurnInput): TurnContext {
  return {
    agentKey: input.agentKey,
    turn: input.turn,
    followups: input.followups,
    limits: input.limits,
    preStepEveryStep: input.preStepEveryStep,
    step: input.step,
    stepCount: 0,
    toolsChanged: input.toolsChanged ?? false,
    pending: input.nextStep,
    usage: emptyUsage,
    consecutiveUnknown: 0,
    lastOutcome: undefined,
    cancelCause: undefined,
    reason: undefined,
    error: undefined,
    vetoReason: undefined,
    stopRefusals: 0,
    compacting: {
      policy: input.compaction ?? noCompaction,
      usage: input.contextUsage ?? unknownContext,
      tried: input.compactionTried ?? false,
      request: input.compactRequest,
      serving: undefined,
    },
  };
}

/** What a finished step changes: its outcome and cost, the unknown-tool streak and the context it used. */
export function stepRecord(context: TurnContext, output: StepOutput): Partial<TurnContext> {
  const answered = output.usedTokens !== undefined;
  return {
    lastOutcome: output.outcome,
    usage: addUsage(context.usage, output.usage),
    error: output.error,
    // A step counts towards the limit only when every call it made named an unknown tool.
    consecutiveUnknown:
      output.toolCalls > 0 && output.unknownTools === output.toolCalls ? context.consecutiveUnknown + 1 : 0,
    compacting: {
      ...context.compacting,
      usage: answered
        ? { ...context.compacting.usage, usedTokens: output.usedTokens! }
        : context.compacting.usage,
      tried: answered ? false : context.compacting.tried || output.compaction !== undefined,
    },
  };
}

/** What the turn reports to its agent once it has ended. */
export function turnOutput(context: TurnContext): TurnOutput {
  return {
    turn: context.turn,
    reason: context.reason!,
    usage: context.usage,
    unclaimed: context.pending,
    contextUsage: context.compacting.usage,
    compactionTried: context.compacting.tried,
    ...(context.compacting.request ? { compactRequest: context.compacting.request } : {}),
  };
}
