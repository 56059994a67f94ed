// The turn's input, events, context and report.
import type { ProviderErrorData } from '../errors/provider-error.ts';
import type { Usage } from '../providers/types.ts';
import type { StepAnswer } from '../session/log-position.ts';
import type { ResumeCall } from '../session/resume-point.ts';
import type { CancelCause, HookDecidedData, McpToolEntry, OutputSpec, StopReason } from '../session/types.ts';
import type { AgentKeyed } from './agent-key.ts';
import type {
  CompactionOrder,
  CompactionPolicy,
  CompactRequest,
  CompactResult,
  ContextUsage,
} from './compaction-types.ts';
import type { HookTurnEvent } from './hook-events.ts';
import type { InboxItem } from './inbox.ts';
import type { StepDoneEvent, StepOutcome, StepSettings } from './step-types.ts';

export type TurnLimits = { maxSteps: number; maxUnknownToolCalls: number };

export type TurnInput = AgentKeyed & {
  turn: number;
  /** Follow-ups this turn answers, claimed when it starts. */
  followups: InboxItem[];
  /** Steer/inject items already waiting, claimed before the first step. */
  nextStep: InboxItem[];
  /** Background children the turn waits for from its start (ones a resume brought back); default none. */
  owed?: string[];
  limits: TurnLimits;
  /** Run the pre-step work before every step (a pre-step hook, or MCP servers whose tool lists change). */
  preStepEveryStep: boolean;
  /** The pre-step work is due before the first step too (see `TurnContext.toolsChanged`). */
  toolsChanged?: boolean;
  step: StepSettings;
  /** When to compact by itself (absent: never; a manual request is still served). */
  compaction?: CompactionPolicy;
  /** The context as the last turn left it. */
  contextUsage?: ContextUsage;
  /** A compaction ran (or found nothing) since the request `contextUsage` describes. */
  compactionTried?: boolean;
  /** A compaction the host asked for; this turn runs it before its next step. */
  compactRequest?: CompactRequest;
  /** The output a typed follow-up asks of this turn: its final answer is checked before the turn completes. */
  output?: TurnOutputRequest;
};

/**
 * A typed run's output (`OutputSpec`) and the follow-up that asked for it, whose check decides; `failures`:
 * the checks that already failed in this turn (a turn a stopped process left waiting), default none.
 */
export type TurnOutputRequest = OutputSpec & { inboxId: string; failures?: number };

/**
 * A typed turn's checks, in one field (see `compacting`): what it asks for, how many final answers failed
 * their check, and whether the latest one passed (a new step's answer is checked again).
 */
export type TurnOutputState = { request: TurnOutputRequest; failures: number; accepted: boolean };

/** What the output check is asked: the final answer of `step`, checked as the `attempt`-th of the turn. */
export type OutputCheckInput = AgentKeyed & {
  turn: number;
  step: number;
  attempt: number;
  inboxId: string;
  schema: Record<string, unknown>;
};

/** A check of the final answer against the turn's output schema (`valid`, or why not in `error`). */
export type OutputCheckedEvent = { type: 'output.checked'; valid: boolean; error?: string };

/**
 * Continues a turn that a stopped process left waiting (see `resumePoint`): its step `step` had its answer
 * and was running tools; `usage` is what the turn cost before that answer, `consecutiveUnknown` the steps
 * before it that asked only for unknown tools.
 */
export type TurnResumeEvent = {
  type: 'turn.resume';
  step: number;
  usage: Usage;
  consecutiveUnknown: number;
  answer: StepAnswer;
  calls: ResumeCall[];
};

/**
 * Continues a turn that a stopped process left resting in `waitingForAgents`: its `step` steps ended, the
 * last one a final answer, and it still waits for the background children in `owed`. `usage` is what the
 * turn cost so far.
 */
export type TurnResumeWaitingEvent = {
  type: 'turn.resumeWaiting';
  step: number;
  usage: Usage;
  owed: string[];
};

export type TurnEvent =
  | StepDoneEvent
  | { type: 'turn.begin' }
  | TurnResumeEvent
  | TurnResumeWaitingEvent
  | { type: 'turn.cancel'; cause: CancelCause; clearInbox?: boolean }
  | { type: 'inbox.nextStep'; items: InboxItem[] }
  | { type: 'turn.compact'; instructions?: string }
  | { type: 'hook.allow'; tools?: ToolsUpdate; decisions?: HookDecidedData[] }
  | { type: 'hook.veto'; reason: string; tools?: ToolsUpdate; decisions?: HookDecidedData[] }
  | { type: 'log.flushed' }
  /** A background child was started that this turn must hear from before it ends (`wait` not false). */
  | { type: 'agents.owe'; id: string }
  /** A background child ended without a result for this turn (stopped, or gone): it is owed no more. */
  | { type: 'agents.heard'; id: string }
  /** The tools offered may have changed (the permission mode did): the next step's pre-step work is due. */
  | { type: 'tools.changed' }
  | OutputCheckedEvent
  | HookTurnEvent;

/**
 * What the pre-step work found about the tools: the MCP servers whose tool lists changed since the last
 * step (each logged as `mcp.tools`), and the tool names and system hash the next `step.start` records.
 */
export type ToolsUpdate = {
  changes: { server: string; tools: McpToolEntry[] }[];
  toolNames: string[];
  systemHash: string;
};

export type TurnOutput = {
  turn: number;
  reason: StopReason;
  usage: Usage;
  /** Next-step input that no step claimed; the agent keeps it queued, so nothing is dropped. */
  unclaimed: InboxItem[];
  contextUsage: ContextUsage;
  compactionTried: boolean;
  /** A compaction asked for too late for this turn (it was ending); the agent runs it next. */
  compactRequest?: CompactRequest;
};

/** What the agent receives when the turn reaches its final state. */
export type TurnDoneEvent = { type: 'xstate.done.actor.turn'; output: TurnOutput };

/** What the turn tells its agent when a compaction the host asked for has ended, one way or another. */
export type TurnCompactedEvent = { type: 'turn.compacted'; result: CompactResult };

export type TurnContext = Omit<
  TurnInput,
  'nextStep' | 'owed' | 'compaction' | 'contextUsage' | 'compactionTried' | 'compactRequest' | 'output'
> & {
  stepCount: number;
  /**
   * The background children started in this turn (or a resume brought back for it) that it has not heard
   * from: the turn waits for them (`waitingForAgents`) before it ends, until each one's result arrives or
   * it is stopped.
   */
  owed: string[];
  /** The tools offered may have changed since the last pre-step work (`tools.changed`). */
  toolsChanged: boolean;
  pending: InboxItem[];
  usage: Usage;
  consecutiveUnknown: number;
  lastOutcome: StepOutcome | undefined;
  cancelCause: CancelCause | undefined;
  reason: StopReason | undefined;
  error: ProviderErrorData | undefined;
  /** What the turn's hooks decided about its edges, in one field (see `compacting`). */
  hookVerdicts: TurnHookVerdicts;
  /**
   * Everything about compaction, in one field: XState copies the context on every `assign`, and V8 keeps
   * an object with about 18 or more properties as a slow dictionary, which made each copy ~20× dearer.
   */
  compacting: TurnCompaction;
  /** A typed turn's output checks; undefined for free text. */
  output: TurnOutputState | undefined;
};

export type TurnHookVerdicts = {
  /** Why a `userMessage` or `preStep` hook blocked the turn (`turn.end.vetoReason`). */
  vetoReason: string | undefined;
  /** How many times this turn's `stop` hooks refused its end (bounded by `maxStopRefusals`). */
  stopRefusals: number;
};

export type TurnCompaction = {
  policy: CompactionPolicy;
  usage: ContextUsage;
  /** A compaction ran (or found nothing) since the request `usage` describes. */
  tried: boolean;
  /** A compaction the host asked for, not served yet. */
  request: CompactRequest | undefined;
  /** The compaction the step actor is running for this turn. */
  serving: CompactionOrder | undefined;
};

/** No automatic compaction, and a window nothing fills: for charts driven without a runtime. */
export const noCompaction: CompactionPolicy = { enabled: false, threshold: 1 };
export const unknownContext: ContextUsage = { usedTokens: 0, contextWindow: Number.MAX_SAFE_INTEGER };
