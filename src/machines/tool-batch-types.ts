// The tool batch's events, input, context and report: what the batch chart, its actors and its parent
// step exchange.
import type { ToolCallRequest } from '../providers/types.ts';
import type { ResumeCall } from '../session/resume-point.ts';
import type { ToolOutcome } from '../session/types.ts';
import type { AgentKeyed } from './agent-key.ts';
import type { HookFlags, HookToolEvent } from './hook-events.ts';
import type { BatchCall } from './tool-batch-plan.ts';

/** The check of one call before anything runs: validation, known tool, permission. */
export type CallCheck = {
  callId: string;
  /** Validated (parsed) input when valid; the raw input otherwise. */
  input: unknown;
  safe: boolean;
  verdict: 'run' | 'ask' | 'reject';
  /** For `reject`: the synthetic result the model reads. */
  outcome?: 'error' | 'denied';
  content?: string;
  unknownTool?: boolean;
  /** The permission decision, when one was made (valid calls only). */
  decision?: { outcome: 'allow' | 'deny'; by: 'rule' | 'mode' | 'session' | 'headless'; reason: string };
  /** For `ask`: what asked (the mode's default, or a rule: a hook's allow does not pass a rule's ask). */
  askedBy?: 'rule' | 'mode' | 'session';
  /** For `ask`: why, for the denial when nobody can approve. */
  askReason?: string;
};

/** What a batch actor is configured with for the whole turn; each step's calls come with `batch.begin`. */
export type ToolBatchInput = AgentKeyed & { turn: number; maxParallel: number; hooks?: HookFlags };

/** Starts the batch of one step: the calls of one model response, in model order. */
export type BatchBeginEvent = { type: 'batch.begin'; step: number; calls: ToolCallRequest[] };

/**
 * Continues the batch of a step that a stopped process left waiting (see `resumePoint`): the calls as the
 * log left them. Nothing is logged twice: results in the log stay committed, and decisions stand.
 */
export type BatchResumeEvent = { type: 'batch.resume'; step: number; calls: ResumeCall[] };

/** What the batch asks of its check actor, which answers with `batch.checked`. */
export type ToolCheckCommand = { type: 'check'; calls: ToolCallRequest[] };

export type ToolBatchEvent =
  | BatchBeginEvent
  | BatchResumeEvent
  | { type: 'batch.checked'; checks: CallCheck[] }
  | { type: 'tool.settled'; callId: string; outcome: ToolOutcome; content: string; error?: string }
  | {
      type: 'tool.approve';
      callId: string;
      remember?: 'session';
      rule?: string;
      by?: 'host' | 'user';
      /** For a plan (`exit_plan_mode`): the permission mode to switch to (checked by the host's API). */
      mode?: string;
    }
  | { type: 'tool.deny'; callId: string; reason?: string; by?: 'host' | 'user' }
  | { type: 'batch.cancel' }
  | HookToolEvent
  /** The log is durable up to here: the batch may ask for approval now. */
  | { type: 'log.flushed' };

export type ToolBatchContext = AgentKeyed & {
  turn: number;
  step: number;
  maxParallel: number;
  calls: BatchCall[];
  unknownTools: number;
  hooks: HookFlags;
};

/** What the batch reports once every call has exactly one committed result. */
export type BatchOutput = { results: number; unknownTools: number; calls: number };

/** What the parent step receives when a batch is over (the batch actor then waits for the next one). */
export type BatchDoneEvent = { type: 'batch.done'; output: BatchOutput };
