// Pure helpers of the turn chart: the context a turn starts with, the log entries it writes, what a
// finished step changes in it and what the turn reports to its agent. Kept beside the chart so the chart
// file reads as states.
import { addUsage, emptyUsage } from '../providers/types.ts';
import type { LogEntry } from '../session/types.ts';
import type { InboxItem } from './inbox.ts';
import type { StepOutput } from './step-types.ts';
import {
  noCompaction,
  type OutputCheckedEvent,
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
    owed: input.owed ?? [],
    toolsChanged: input.toolsChanged ?? false,
    pending: input.nextStep,
    usage: emptyUsage,
    consecutiveUnknown: 0,
    lastOutcome: undefined,
    cancelCause: undefined,
    reason: undefined,
    error: undefined,
    hookVerdicts: { vetoReason: undefined, stopRefusals: 0 },
    compacting: {
      policy: input.compaction ?? noCompaction,
      usage: input.contextUsage ?? unknownContext,
      tried: input.compactionTried ?? false,
      request: input.compactRequest,
      serving: undefined,
    },
    output: input.output
      ? { request: input.output, failures: input.output.failures ?? 0, accepted: false }
      : undefined,
  };
}

/** `turn.start`, with the output format of a typed turn: every request of the turn reads it from here. */
export function turnStartEntry(context: TurnContext): LogEntry {
  const output = context.output?.request;
  const data = output ? { output: { schema: output.schema, maxRetries: output.maxRetries } } : {};
  return { type: 'turn.start', turn: context.turn, data };
}

/** The check of step `stepCount`'s final answer; `attempt` counts the answers checked in the turn. */
export function outputCheckedEntry(context: TurnContext, event: OutputCheckedEvent): LogEntry {
  const attempt = (context.output?.failures ?? 0) + 1;
  const data = { valid: event.valid, attempt, ...(event.error !== undefined ? { error: event.error } : {}) };
  return { type: 'output.checked', turn: context.turn, step: context.stepCount, data };
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
    // A new answer is checked again (a `stop` hook refused the one that passed, or steering came in).
    ...(context.output?.accepted ? { output: { ...context.output, accepted: false } } : {}),
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

/** The log entries that claim queued input: `inbox.claimed`, then each item as a user message. */
export function claimEntries(turn: number, items: readonly InboxItem[]): LogEntry[] {
  if (items.length === 0) return [];
  return [
    { type: 'inbox.claimed', turn, data: { ids: items.map((item) => item.id) } },
    ...items.map(
      (item): LogEntry => ({
        type: 'user.message',
        turn,
        data: { channel: item.channel, content: item.message, inboxId: item.id },
      }),
    ),
  ];
}

export function turnEndEntry(context: TurnContext): LogEntry {
  return {
    type: 'turn.end',
    turn: context.turn,
    data: {
      reason: context.reason!,
      usage: context.usage,
      ...(context.cancelCause ? { cause: context.cancelCause } : {}),
      ...(context.reason === 'model_error' && context.error ? { error: context.error } : {}),
      ...(context.hookVerdicts.vetoReason !== undefined
        ? { vetoReason: context.hookVerdicts.vetoReason }
        : {}),
    },
  };
}

/** Whether the turn has a step to take: its first (with input), or another after tools, a pause or steering. */
export function stepDue(context: TurnContext): boolean {
  if (context.stepCount === 0 && context.followups.length > 0) return true;
  return context.lastOutcome === 'tools' || context.lastOutcome === 'continue' || context.pending.length > 0;
}
