// The step's events, input, context and reports: what the step chart, its model-call actor and its parent
// turn exchange.

import type { ProviderErrorData } from '../errors/provider-error.ts';
import type { Citation, ModelStopReason, ProviderPart, ToolCallRequest, Usage } from '../providers/types.ts';
import type { StepAnswer } from '../session/log-position.ts';
import type { ResumeCall } from '../session/resume-point.ts';
import type { AgentKeyed } from './agent-key.ts';
import type { CompactionOrder, CompactionReport } from './compaction-types.ts';
import type { HookFlags, HookRequestErrorEvent, HookRequestEvent } from './hook-events.ts';
import type { RetryPolicy } from './retry-policy.ts';
import type { BatchDoneEvent } from './tool-batch-types.ts';

/** How the steps of a turn behave: what the turn passes on to its step actor, as the agent set it. */
export type StepSettings = {
  model: string;
  toolNames: string[];
  systemHash: string;
  retry?: RetryPolicy;
  maxParallelTools: number;
  /** Seeds the deterministic backoff jitter (the agent id is a good one). */
  jitterKey: string;
  /** A request the provider refuses as too long is compacted and tried once more (default false). */
  compactOnOverflow?: boolean;
  /** The hook points that have hooks: the turn and the tool batch wait for them there. */
  hooks?: HookFlags;
};

/** What a step actor is configured with for the whole turn; each step's number comes with `step.begin`. */
export type StepInput = AgentKeyed & StepSettings & { turn: number };

export type ModelDoneEvent = {
  type: 'model.done';
  text: string;
  toolCalls: ToolCallRequest[];
  usage: Usage;
  stopReason: ModelStopReason;
  providerParts?: ProviderPart[];
  /** The sources the model cited for its text (see `Citation`). */
  citations?: Citation[];
  /** What the model-call actor repaired in or dropped from the response, for the log. */
  notes?: string[];
};

/** The model answered a compaction request: the runtime planned `replaces`, the model wrote `summary`. */
export type CompactionDoneEvent = {
  type: 'compaction.done';
  replaces: [number, number];
  summary: string;
  tokensBefore: number;
  usage: Usage;
};

export type StepEvent =
  /** Starts a step; with `compaction`, a step that only compacts the conversation (no `step.start`). */
  | {
      type: 'step.begin';
      step: number;
      compaction?: CompactionOrder;
      /** The tools this step offers, when they changed since the turn began (MCP list changes). */
      tools?: Pick<StepSettings, 'toolNames' | 'systemHash'>;
    }
  | StepResumeEvent
  /** The attempt's first text delta reached consumers (sent once per attempt, not per delta). */
  | { type: 'model.streaming' }
  /** The model call's answer to `model.interrupt`: the text of the attempt that consumers saw. */
  | { type: 'model.interrupted'; text: string }
  | ModelDoneEvent
  | { type: 'model.error'; error: ProviderErrorData }
  | CompactionDoneEvent
  /** The planner found nothing older to compact; no model request was made. */
  | { type: 'compaction.skipped' }
  | { type: 'retry.due' }
  | { type: 'step.cancel' }
  | HookRequestErrorEvent
  | HookRequestEvent
  | BatchDoneEvent;

/**
 * Continues a step that a stopped process left waiting on its tools (see `resumePoint`): the model's answer
 * is in the log, so the step goes straight back to its tool batch with the calls as the log left them.
 */
export type StepResumeEvent = { type: 'step.resume'; step: number; answer: StepAnswer; calls: ResumeCall[] };

/** How a step ended, as the turn needs to know it; a compaction step ends `compacted` or `nothing_to_compact`. */
export type StepOutcome =
  | 'tools'
  | 'final'
  | 'continue'
  | 'max_tokens'
  | 'model_error'
  | 'canceled'
  | 'compacted'
  | 'nothing_to_compact';

export type StepOutput = {
  outcome: StepOutcome;
  toolCalls: number;
  unknownTools: number;
  /** Every answered request of the step, a compaction's included. */
  usage: Usage;
  /** The context the step's answered request used (input and cache tokens); absent when none was answered. */
  usedTokens?: number;
  /** The compaction the step logged, if any. */
  compaction?: CompactionReport;
  error?: ProviderErrorData;
};

/** What the parent turn receives when a step is over (the step actor then waits for the next one). */
export type StepDoneEvent = { type: 'step.done'; output: StepOutput };

/**
 * What the step asks of its model-call actor: stream this attempt, abandon the one streaming, or abandon
 * it and answer `model.interrupted` with the text streamed so far.
 */
export type ModelCallCommand =
  | {
      type: 'model.request';
      turn: number;
      step: number;
      attempt: number;
      /** Plan a compaction and ask for its summary instead of the next step of the conversation. */
      compaction?: { instructions?: string };
    }
  | { type: 'model.abort' }
  | { type: 'model.interrupt' };

export type StepContext = StepInput & {
  step: number;
  retry: RetryPolicy;
  attempt: number;
  /**
   * Whether text of the current attempt already reached consumers through live deltas. The text itself
   * stays with the model-call actor (no event per delta) until a cancel asks for it.
   */
  streamed: boolean;
  toolCalls: ToolCallRequest[];
  usage: Usage;
  stopReason: ModelStopReason | undefined;
  error: ProviderErrorData | undefined;
  retryInMs: number | undefined;
  unknownTools: number;
  canceled: boolean;
  /** `compaction` when `step.begin` asked for one: no `step.start`/`step.end`, and no tools. */
  kind: 'step' | 'compaction';
  /** The compaction the request in flight (or waiting to retry) asks for; undefined for a step request. */
  compacting: CompactionOrder | undefined;
  /** The `context_overflow` that made this step compact; a second one ends the step. */
  overflow: ProviderErrorData | undefined;
  compaction: CompactionReport | undefined;
  usedTokens: number | undefined;
};
