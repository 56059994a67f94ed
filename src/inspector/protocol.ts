import type { PermissionMode } from '../permissions/modes.ts';
import type { ActorSnapshot } from '../runtime/agent-handle.ts';
import type { JobStanding } from '../runtime/jobs/job-standings.ts';
import type { LogEvent, StopReason, ToolOutcome } from '../session/types.ts';
import type { TravelAnswer } from './time-travel.ts';

/** Where a tool call is: from `tool.call` to its one `tool.result`. */
export type ToolCallState = 'pending' | 'awaiting_approval' | 'running' | 'done';

export type ToolCallView = {
  callId: string;
  name: string;
  /** The arguments, with long strings cut. */
  input: unknown;
  state: ToolCallState;
  outcome?: ToolOutcome;
};

export type StepView = {
  step: number;
  state: 'requesting' | 'retrying' | 'executing_tools' | 'done';
  attempts: number;
  calls: ToolCallView[];
};

export type TurnView = {
  turn: number;
  state: 'running' | 'ended';
  reason?: StopReason;
  steps: StepView[];
  /** Compactions logged in this turn (automatic, asked for, or after an overflow). */
  compactions?: number;
};

/** One agent as the inspector shows it: lifecycle, live actor tree (live only) and recent turns. */
export type AgentView = {
  id: string;
  parent?: string;
  /** `ready.idle`, `ready.running`, `disposed`, … for a live agent; derived from the log for a recording. */
  state: string;
  live: boolean;
  /** The state of every machine right now (`agent.snapshot()`); absent for a recording. */
  tree?: ActorSnapshot;
  /** The last few turns, newest last. */
  turns: TurnView[];
  logLength: number;
  /** How full the context was at the last answered request (the window is unknown for old recordings). */
  context?: { usedTokens: number; contextWindow?: number };
  /** The last log events, with long strings cut. */
  recent: LogEvent[];
};

/**
 * What the page is first told: the agents, and (live) where each job of the system stands. The job lines
 * of the board come from the system when it says, else from the logs (a recording, an older host).
 */
export type AgentsPayload = {
  source: 'live' | 'recorded';
  title: string;
  agents: AgentView[];
  jobs?: JobStanding[];
};

/** Where an actor sits: its agent, and the local ids from the agent actor down (`['turn', 'step']`). */
export type ActorPlace = {
  /** The actor's `sessionId`, unique in the system. */
  actor: string;
  /** The parent's `sessionId`; null for an agent actor. */
  parent: string | null;
  agentId: string | null;
  path: string[];
  /** The logic's name: `agent`, `turn`, `step`, `toolBatch`, `toolCall`, `modelCall`, … */
  src: string;
};

/**
 * What `/events` streams, one JSON object per Server-Sent Event. Inspection events are projected to ids,
 * state values and event types only: contexts and actor refs never leave the process.
 */
export type InspectorMessage =
  | ({ kind: 'snapshot' } & AgentsPayload)
  | ({ kind: 'actor' } & ActorPlace)
  | ({ kind: 'state'; value: unknown; status: string; event: string } & ActorPlace)
  | ({ kind: 'event'; type: string; source: string | null } & ActorPlace)
  | ({ kind: 'action'; type: string } & ActorPlace)
  | { kind: 'log'; agentId: string; event: LogEvent }
  | { kind: 'delta'; agentId: string; turn: number; step: number; text: string; thinking: boolean }
  | { kind: 'progress'; agentId: string; callId: string; progress: unknown }
  | { kind: 'error'; agentId: string; message: string }
  | { kind: 'agent'; agent: AgentView }
  /** Where the system's jobs stand now (a task started or ended). */
  | { kind: 'jobs'; jobs: JobStanding[] }
  /** This client fell behind and missed messages; a fresh `snapshot` follows. */
  | { kind: 'reset'; dropped: number };

/**
 * What the server serves: a live agent system or a recorded log.
 *
 * Contract: `subscribe` delivers messages in the order they happened; the first subscriber may start
 * observation and the last unsubscribe stops it; `close` ends observation for good.
 */
/** An answer to a call that waits for approval, given from the inspector page. */
export type InspectorDecision =
  | { approve: true; remember?: 'session'; mode?: PermissionMode }
  | { approve: false; reason?: string };

export interface InspectorSource {
  readonly kind: 'live' | 'recorded';
  /**
   * Answers a call waiting for approval, as the user (live sources only): `no_agent` for an agent that
   * is not live, `not_waiting` for a call that is not waiting for approval right now.
   */
  decide?(agentId: string, callId: string, decision: InspectorDecision): 'ok' | 'no_agent' | 'not_waiting';
  agents(): AgentsPayload;
  /** The whole log of one agent (long strings cut), or undefined for an unknown agent. */
  log(agentId: string): LogEvent[] | undefined;
  subscribe(listener: (message: InspectorMessage) => void): () => void;
  /** Every machine's state after event `seq` of an agent's log (time travel); undefined for an unknown agent. */
  travel?(agentId: string, seq: number): Promise<TravelAnswer | undefined>;
  /** The context of each machine of a live agent right now, cut short; undefined when it is not live. */
  contexts?(agentId: string): Record<string, unknown> | undefined;
  close(): Promise<void>;
}
