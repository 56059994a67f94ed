// What the inspector's Agents tab shows of a tree of agents and their mail (projected from the logs by
// agent-tree.ts). Types only: the projection is served to the page as source and may import nothing else.
import type { LogEvent } from '../session/types.ts';

/**
 * How an agent came to be: started by no agent of the tree, by `spawn_agent`, by `task`, or `unlinked`: its
 * `session.start` names a parent whose log does not (yet) link it (a child is created before it is linked).
 */
export type AgentRelation = 'root' | 'background' | 'task' | 'unlinked';

/**
 * What an agent is doing, from its log: `running` a turn, `waiting` in it (for mail, its children or an
 * approval: see `waitingFor`), `idle` between turns, `finished` (a child whose turn ended; a background one
 * sent its result), `stopped` (a child cancelled by its parent, no result), `ended` (its session ended).
 */
export type AgentActivity = 'running' | 'waiting' | 'idle' | 'finished' | 'stopped' | 'ended';

export type AgentNodeView = {
  id: string;
  parent?: string;
  /** 0 for a root, its parent's depth + 1 otherwise. */
  depth: number;
  relation: AgentRelation;
  /** The parent's call that started it. */
  callId?: string;
  /** The label the model gave it, else the first line of its prompt (as `list_agents` shows it). */
  description?: string;
  agentType?: string;
  /** The start of the prompt its parent gave it. */
  prompt?: string;
  /** A background child of a typed agent type: its result is JSON its schema checked. */
  typed?: boolean;
  activity: AgentActivity;
  waitingFor?: string;
  /** Its last turn's stop reason (a background child's: the one its result mail carries). */
  reason?: string;
  /** What it handed back: a background child's result mail, a task child's call result. */
  result?: string;
  /** The injected clock's time of its `session.start` and `session.end`. */
  startedAt?: number;
  endedAt?: number;
  children: string[];
  /** Whether its own log is here (a child named by its parent's log may be missing). */
  logged: boolean;
  /** A supervised agent that was restarted, or whose restart is decided (see `RestartsView`). */
  restarts?: RestartsView;
};

/**
 * The restarts of a supervised agent: how many were decided (its parent's `agent.restarted`, or its own
 * `session.restarted` for a job task), the most its policy allows when the link says, the last failure,
 * and `backingOff`: a restart decided whose `session.restarted` its own log does not have yet.
 */
export type RestartsView = {
  count: number;
  max?: number;
  lastReason: string;
  lastError?: string;
  backingOff: boolean;
};

/** One piece of mail: the sender's `message.sent`, joined with the recipient's `inbox.queued` of the same id. */
export type MailView = {
  id: string;
  from: string;
  to: string;
  kind: 'message' | 'result';
  text: string;
  reason?: string;
  /** Sent by the host (`child.send()`), in its parent agent's name. */
  byHost?: boolean;
  sentAt?: number;
  /** When the recipient's inbox took it (absent: not received yet, or the recipient's log is not here). */
  receivedAt?: number;
};

export type AgentTreeView = { agents: AgentNodeView[]; mail: MailView[] };

/** One session's log as the tree reads it: who started whom with which call, and the mail it sent and took. */
export type ReadLog = {
  node: AgentNodeView;
  events: LogEvent[];
  /** The children this log started, by child id, in the order it started them. */
  spawns: Map<
    string,
    { callId: string; relation: AgentRelation; wait: boolean; typed: boolean; maxRestarts?: number }
  >;
  /** The restarts this log decided for its children (`agent.restarted`), by child id, in order. */
  restartsDecided: Map<string, Array<{ reason: string; error?: string }>>;
  /** The restarts made of this agent (`session.restarted` in its own log), in order. */
  restarted: Array<{ reason: string; error?: string }>;
  calls: Map<string, { name: string; input: Record<string, unknown>; result?: string }>;
  sent: MailView[];
  /** Mail its inbox took from another agent. */
  received: MailView[];
};
