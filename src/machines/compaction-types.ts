// What the charts know about the context window and compaction, as plain data: the agent, turn and step
// pass it along; the model-call actor does the I/O (planning, the summarising request).
import type { ProviderErrorData } from '../errors/provider-error.ts';
import type { CompactionTrigger } from '../session/types.ts';

/** How full the context is: what the last answered request of a step used, and the model's window (tokens). */
export type ContextUsage = { usedTokens: number; contextWindow: number };

/** When a turn compacts by itself. */
export type CompactionPolicy = {
  /** Automatic compaction, and compaction after a `context_overflow`, are on (manual always is). */
  enabled: boolean;
  /** Compact before the next step once the last request used at least this share of the window. */
  threshold: number;
};

/** A compaction the host asked for (`agent.compact`). */
export type CompactRequest = { instructions?: string };

/** What a step is asked to compact: `step.begin`'s `compaction`, or the step's own after an overflow. */
export type CompactionOrder = { trigger: CompactionTrigger; instructions?: string };

/** A compaction that was logged. */
export type CompactionReport = {
  replaces: [number, number];
  summary: string;
  tokensBefore: number;
  trigger: CompactionTrigger;
};

/** How `agent.compact()` ended. */
export type CompactResult =
  | ({ compacted: true } & Omit<CompactionReport, 'trigger'>)
  | {
      compacted: false;
      /** Nothing older to compact, canceled (or disposed) before it was done, or the model failed. */
      reason: 'nothing_to_compact' | 'canceled' | 'model_error';
      error?: ProviderErrorData;
    };

/** Whether the turn should compact before its next step. */
export function compactionDue(
  usage: ContextUsage,
  policy: CompactionPolicy,
  triedSinceUsage: boolean,
): boolean {
  return policy.enabled && !triedSinceUsage && usage.usedTokens >= policy.threshold * usage.contextWindow;
}

/** Why a `context_overflow` could not be recovered from. */
export type ShrinkFailure = 'nothing_older' | 'still_too_long' | 'summary_too_long';

const shrinkFailures: Record<ShrinkFailure, string> = {
  nothing_older: 'there is nothing older in the conversation to compact',
  still_too_long: 'the request was still too long after compaction',
  summary_too_long: 'the part to summarise does not fit the context window either',
};

/** The error a turn ends with when compaction cannot shrink a request the provider refused as too long. */
export function cannotShrink(error: ProviderErrorData, why: ShrinkFailure): ProviderErrorData {
  return {
    kind: 'context_overflow',
    message: `compaction could not shrink the request: ${shrinkFailures[why]} (${error.message})`,
    retryable: false,
    ...(error.status !== undefined ? { status: error.status } : {}),
  };
}

/** The result of a manual compaction, from the compaction step's output. */
export function compactResultOf(output: {
  outcome: string;
  compaction?: CompactionReport | undefined;
  error?: ProviderErrorData | undefined;
}): CompactResult {
  if (output.compaction) {
    const { replaces, summary, tokensBefore } = output.compaction;
    return { compacted: true, replaces, summary, tokensBefore };
  }
  if (output.outcome === 'model_error') {
    return { compacted: false, reason: 'model_error', ...(output.error ? { error: output.error } : {}) };
  }
  return { compacted: false, reason: output.outcome === 'canceled' ? 'canceled' : 'nothing_to_compact' };
}
