// The step's events, input, context and reports: what the step chart, its model-call actor and its parent
// turn exchange.
import type { ProviderErrorData } from '../errors/provider-error.ts';
import type { ModelStopReason, ProviderPart, ToolCallRequest, Usage } from '../providers/types.ts';
import type { AgentKeyed } from './agent-key.ts';
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
  /** What the model-call actor repaired in or dropped from the response, for the log. */
  notes?: string[];
};

export type StepEvent =
  | { type: 'step.begin'; step: number }
  | { type: 'model.delta'; text: string }
  | ModelDoneEvent
  | { type: 'model.error'; error: ProviderErrorData }
  | { type: 'retry.due' }
  | { type: 'step.cancel' }
  | BatchDoneEvent;

/** How a step ended, as the turn needs to know it. */
export type StepOutcome = 'tools' | 'final' | 'continue' | 'max_tokens' | 'model_error' | 'canceled';

export type StepOutput = {
  outcome: StepOutcome;
  toolCalls: number;
  unknownTools: number;
  usage: Usage;
  error?: ProviderErrorData;
};

/** What the parent turn receives when a step is over (the step actor then waits for the next one). */
export type StepDoneEvent = { type: 'step.done'; output: StepOutput };

/** What the step asks of its model-call actor: stream this attempt, or abandon the one streaming. */
export type ModelCallCommand =
  | { type: 'model.request'; turn: number; step: number; attempt: number }
  | { type: 'model.abort' };

export type StepContext = StepInput & {
  step: number;
  retry: RetryPolicy;
  attempt: number;
  /** Text of the current attempt that has already reached consumers through live deltas. */
  streamedText: string;
  toolCalls: ToolCallRequest[];
  usage: Usage;
  stopReason: ModelStopReason | undefined;
  error: ProviderErrorData | undefined;
  retryInMs: number | undefined;
  unknownTools: number;
  canceled: boolean;
};
