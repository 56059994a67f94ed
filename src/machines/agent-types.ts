// The agent chart's input, events and context, and the emitted event a host listens to.
import type { CancelCause, HookDecidedData } from '../session/types.ts';
import type { AgentKeyed } from './agent-key.ts';
import type { CompactionPolicy, CompactRequest, CompactResult, ContextUsage } from './compaction-types.ts';
import type { InboxEvent, InboxItem, MailEvent } from './inbox.ts';
import type { StepSettings } from './step-types.ts';
import type {
  TurnCompactedEvent,
  TurnDoneEvent,
  TurnLimits,
  TurnOutputRequest,
  TurnResumeEvent,
  TurnResumeWaitingEvent,
} from './turn-types.ts';

/**
 * The ordered stages of creating an agent. Each one that completes can be undone. `worktree` makes (or
 * finds again) an isolated agent's git worktree, its workspace (nothing to do without isolation); `servers`
 * starts the agent's MCP servers (nothing to do without any), before `tools` offers their tools.
 */
export const setupStages = ['session', 'worktree', 'servers', 'tools', 'publish'] as const;
export type SetupStage = (typeof setupStages)[number];

export type AgentInput = AgentKeyed & {
  agentId: string;
  /** The number of the last turn already in the log (0 for a new session). */
  lastTurn: number;
  /** Input queued in an earlier life of this session and never claimed. */
  inbox: InboxItem[];
  limits: TurnLimits;
  /** Run the pre-step work before every step (a pre-step hook, or MCP servers whose tool lists change). */
  preStepEveryStep: boolean;
  /** Run the pre-step work before each turn's first step (the environment block is refreshed there). */
  preStepAtTurnStart?: boolean;
  /** `sessionEnd` hooks are configured for this agent: dispose waits for them in `endingSession`. */
  sessionEndHooks?: boolean;
  /** The agent starts MCP servers of its own: creation connects them, dispose closes them (else neither). */
  startsServers?: boolean;
  /** The agent works in a git worktree of its own: creation makes it, dispose finishes it (else neither). */
  isolated?: boolean;
  /** How steps behave; the tools stage adds the tool names and the system prompt's hash. */
  step: Omit<StepSettings, 'toolNames' | 'systemHash'>;
  /** When turns compact by themselves (absent: never). */
  compaction?: CompactionPolicy;
  /** The context as the log leaves it (a resumed session's last request). */
  contextUsage?: ContextUsage;
  /** A compaction followed that request. */
  compactionTried?: boolean;
  /** A turn that a stopped process left waiting: the agent continues it as soon as it is ready. */
  resume?: TurnResume;
};

/**
 * Where a waiting turn continues (from `resumePoint`): its number and what `turn.resume` (a step waiting on
 * its tools) or `turn.resumeWaiting` (a turn waiting for its background children) carries.
 */
export type TurnResume = (Omit<TurnResumeEvent, 'type'> | Omit<TurnResumeWaitingEvent, 'type'>) & {
  turn: number;
  output?: TurnOutputRequest;
};

export type AgentEvent =
  | {
      type: 'setup.done';
      stage: SetupStage;
      toolNames?: string[];
      systemHash?: string;
      /** `publish`: what the `sessionStart` hooks decided, logged when the agent first acts. */
      sessionStart?: HookDecidedData[];
    }
  | { type: 'setup.error'; stage: SetupStage; error: unknown }
  | { type: 'undo.done'; stage: SetupStage }
  | InboxEvent
  | MailEvent
  /** A background child of this agent is live; with `wait`, the running turn must hear from it. */
  | { type: 'agent.childStarted'; id: string; wait: boolean }
  /** A background child of this agent has been disposed (its result, if any, was delivered before). */
  | { type: 'agent.childEnded'; id: string }
  | { type: 'children.released' }
  | { type: 'agent.cancel'; cause: CancelCause; clearInbox?: boolean }
  | { type: 'agent.compact'; instructions?: string }
  /** The tools offered may have changed (a `mode.changed` was logged); a running turn is told. */
  | { type: 'agent.toolsChanged' }
  | { type: 'agent.dispose' }
  | TurnDoneEvent
  | TurnCompactedEvent
  | { type: 'hook.sessionEnd'; decisions: HookDecidedData[] }
  | { type: 'log.flushed' }
  | { type: 'servers.closed' }
  | { type: 'worktree.finished' }
  | { type: 'revoke.done' };

/** What the agent actor emits (`actor.on(…)`): how a compaction the host asked for ended. */
export type AgentEmitted = { type: 'compaction.settled'; result: CompactResult };

export type AgentContext = Omit<AgentInput, 'compaction' | 'contextUsage' | 'compactionTried' | 'resume'> & {
  /** The waiting turn to continue, until the agent is ready and has started it. */
  resume: TurnResume | undefined;
  completedStages: SetupStage[];
  toolNames: string[];
  systemHash: string;
  creationError: unknown;
  disposeRequested: boolean;
  turnAlive: boolean;
  /** The tools offered may have changed since the last turn (a `mode.changed` while idle). */
  toolsChanged: boolean;
  /** After a cancel, queued input waits for new input (or an explicit wake) instead of running at once. */
  held: boolean;
  /**
   * The live background children: a cancel releases them (cancel and dispose), and dispose releases them
   * before the session ends. `releasing`: a cancel's release is under way.
   */
  children: {
    live: string[];
    releasing: boolean;
    /**
     * Children adopted (with `wait`) while no turn ran: ones a resume brought back after the turn that started
     * them was cut short. The next turn that input starts waits for them.
     */
    owedToNextTurn: string[];
  };
  compaction: CompactionPolicy;
  contextUsage: ContextUsage;
  compactionTried: boolean;
  /** A compaction the host asked for while no turn could take it; the next turn runs it first. */
  compactRequest: CompactRequest | undefined;
  /**
   * What the `sessionStart` hooks decided during setup, not yet logged: the agent logs it before its first
   * turn (or at dispose), once the host holds its handle.
   */
  sessionStart: HookDecidedData[] | undefined;
};
