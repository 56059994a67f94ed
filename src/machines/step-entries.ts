// Pure helpers of the step chart: the log entries it writes, the state each step starts from, and the
// report it gives its turn. Kept beside the chart so the chart file reads as states and transitions.
import type { ProviderErrorData } from '../errors/provider-error.ts';
import { addUsage, emptyUsage } from '../providers/types.ts';
import { contextTokens } from '../session/context-tokens.ts';
import type { LogEntry } from '../session/types.ts';
import type {
  CompactionDoneEvent,
  ModelDoneEvent,
  StepContext,
  StepOutcome,
  StepOutput,
  StepResumeEvent,
} from './step-types.ts';
import type { BatchBeginEvent } from './tool-batch-types.ts';

const where = (context: StepContext) => ({ turn: context.turn, step: context.step });

/** Everything a step starts without; `step.begin` resets to this, so no state leaks between steps. */
export const freshStep = (step: number) => ({
  step,
  attempt: 1,
  streamed: false,
  toolCalls: [],
  usage: emptyUsage,
  stopReason: undefined,
  error: undefined,
  retryInMs: undefined,
  unknownTools: 0,
  canceled: false,
  kind: 'step' as const,
  compacting: undefined,
  overflow: undefined,
  compaction: undefined,
  usedTokens: undefined,
});

/** What the step keeps of the model's answer. */
export function responseRecord(context: StepContext, event: ModelDoneEvent) {
  const { toolCalls, stopReason } = event;
  return {
    toolCalls,
    stopReason,
    usage: addUsage(context.usage, event.usage),
    usedTokens: contextTokens(event.usage),
  };
}

/** The batch of the answer's tool calls. */
export function batchBegin(context: StepContext): BatchBeginEvent {
  return { type: 'batch.begin', step: context.step, calls: context.toolCalls };
}

/** A resumed step: the answer the log holds, and no attempt left to make. */
export function resumedStep(event: StepResumeEvent) {
  const { toolCalls, usage, stopReason } = event.answer;
  return {
    ...freshStep(event.step),
    toolCalls,
    usage,
    // An answer with tool calls is never an interrupted one.
    stopReason: stopReason === 'interrupted' ? undefined : stopReason,
    usedTokens: contextTokens(usage),
  };
}

export function stepStartEntry(context: StepContext): LogEntry {
  const { model, toolNames, systemHash } = context;
  return { type: 'step.start', ...where(context), data: { model, toolNames, systemHash } };
}

export function stepEndEntry(context: StepContext): LogEntry {
  return { type: 'step.end', ...where(context), data: { toolResults: context.toolCalls.length } };
}

export function responseEntry(context: StepContext, event: ModelDoneEvent): LogEntry {
  const data = {
    text: event.text,
    toolCalls: event.toolCalls,
    usage: event.usage,
    stopReason: event.stopReason,
    ...(event.providerParts?.length ? { providerParts: event.providerParts } : {}),
    ...(event.citations?.length ? { citations: event.citations } : {}),
    ...(event.notes?.length ? { notes: event.notes } : {}),
  };
  return { type: 'assistant.message', ...where(context), data };
}

/** Text that consumers already saw stays in the log; half-built tool calls do not. */
export function interruptedEntry(context: StepContext, text: string): LogEntry {
  const data = {
    text,
    toolCalls: [],
    usage: emptyUsage,
    stopReason: 'interrupted' as const,
    interrupted: true,
  };
  return { type: 'assistant.message', ...where(context), data };
}

/** A failed attempt; `retryInMs` is how long the step waits before the next one (0: it compacts first). */
export function attemptEntry(context: StepContext, retryInMs: number): LogEntry {
  const data = { error: context.error!, attempt: context.attempt, retryInMs };
  return { type: 'assistant.attempt', ...where(context), data };
}

/**
 * The attempt after which the step gives up, with the provider's own error: every failed request is in
 * the log, so a replay answers each one (the turn's error may say more, e.g. why compaction did not help).
 */
export function lastAttemptEntry(context: StepContext, error: ProviderErrorData): LogEntry {
  return { type: 'assistant.attempt', ...where(context), data: { error, attempt: context.attempt } };
}

export function compactionEntry(context: StepContext, event: CompactionDoneEvent): LogEntry {
  const { replaces, summary, tokensBefore, usage } = event;
  const trigger = context.compacting?.trigger ?? 'auto';
  return { type: 'compaction', ...where(context), data: { replaces, summary, tokensBefore, trigger, usage } };
}

function outcomeOf(context: StepContext): StepOutcome {
  if (context.canceled) return 'canceled';
  if (context.error) return 'model_error';
  if (context.kind === 'compaction') return context.compaction ? 'compacted' : 'nothing_to_compact';
  if (context.toolCalls.length > 0) return 'tools';
  if (context.stopReason === 'max_tokens') return 'max_tokens';
  if (context.stopReason === 'pause_turn') return 'continue';
  return 'final';
}

/** How the step ended, for the turn. */
export function stepOutput(context: StepContext): StepOutput {
  return {
    outcome: outcomeOf(context),
    toolCalls: context.toolCalls.length,
    unknownTools: context.unknownTools,
    usage: context.usage,
    ...(context.usedTokens !== undefined ? { usedTokens: context.usedTokens } : {}),
    ...(context.compaction ? { compaction: context.compaction } : {}),
    ...(context.error && !context.canceled ? { error: context.error } : {}),
  };
}
