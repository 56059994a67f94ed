import type { ProviderErrorData } from '../errors/provider-error.ts';
import type { Citation, ModelStopReason, ProviderPart, ToolCallRequest, Usage } from '../providers/types.ts';
import type { HookDecidedData } from './hook-decisions.ts';
import type {
  AgentRestartedData,
  AgentSpawnedData,
  MailKind,
  OutputSpec,
  RestartReason,
  SessionRestartedData,
  SupervisionSpec,
} from './tree-events.ts';

export { type HookDecidedData, type HookOutcome, type HookPoint, hookPoints } from './hook-decisions.ts';
export type {
  AgentRestartedData,
  AgentSpawnedData,
  MailKind,
  OutputSpec,
  RestartReason,
  SessionRestartedData,
  SupervisionSpec,
};

/** The version of the log format this build writes. Readers refuse newer versions. */
export const LOG_FORMAT_VERSION = 1;

/** One entry of the append-only session log, one JSON object per line in the file store. */
export type LogEvent = {
  v: number;
  seq: number;
  ts: number;
  type: LogEventType;
  turn?: number;
  step?: number;
  data: Record<string, unknown>;
};

export type InboxChannel = 'followup' | 'steer' | 'inject';

export type ToolOutcome =
  | 'ok'
  | 'error'
  | 'denied'
  | 'aborted'
  | 'timeout'
  | 'aborted_before_start'
  | 'not_started'
  | 'unknown';

export type StopReason =
  | 'completed'
  | 'max_steps'
  | 'unknown_tool_limit'
  | 'canceled'
  | 'model_error'
  | 'blocked'
  | 'max_tokens'
  | 'interrupted'
  | 'invalid_output';

export type CancelCause = 'user' | 'parent' | 'disposed' | 'hook';

/** Why a compaction happened: the window filled up, the host asked, or the provider refused the request as too long. */
export type CompactionTrigger = 'auto' | 'manual' | 'overflow';

/** The data of each event type: the contract between writers, readers and `project()`. */
export type LogEventData = {
  'session.start': {
    agentId: string;
    parent?: string;
    forkOf?: { sessionId: string; atSeq: number };
    config: Record<string, unknown>;
  };
  /**
   * Input queued for a turn or step. Mail from another agent of the tree (a background child's message
   * or final result, a parent's message) names its sender in `from` (the sender's session id) and has
   * the id of the sender's `message.sent`; `kind: 'result'` marks a child's final result. `output`: the
   * follow-up is a typed run's, whose turn must end with a valid answer (see `OutputSpec`).
   */
  'inbox.queued': {
    id: string;
    channel: InboxChannel;
    message: string;
    from?: string;
    kind?: MailKind;
    output?: OutputSpec;
  };
  'inbox.claimed': { ids: string[] };
  'inbox.cleared': { ids: string[] };
  /** `output`: every request of the turn asks for this format, and its final answer is checked against it. */
  'turn.start': { output?: OutputSpec };
  'step.start': { model: string; toolNames: string[]; systemHash: string };
  'user.message': { channel: InboxChannel; content: string; inboxId?: string };
  'assistant.message': {
    text: string;
    toolCalls: ToolCallRequest[];
    usage: Usage;
    stopReason: ModelStopReason | 'interrupted';
    interrupted?: boolean;
    providerParts?: ProviderPart[];
    /** The sources the model cited, with the span of `text` each supports (see `Citation`). */
    citations?: Citation[];
    /** What the runtime repaired in or dropped from a malformed response (absent when nothing). */
    notes?: string[];
  };
  /** A failed model request; `retryInMs` absent: the last attempt, after which the step gave up. */
  'assistant.attempt': { error: ProviderErrorData; attempt: number; retryInMs?: number };
  'tool.call': { callId: string; name: string; input: unknown };
  /**
   * What one hook answered at one hook point (docs/hooks-and-settings.md). Whatever a hook changes that the
   * model sees is here (`input`, `content`, `message`): replay and resume read it, not run the hook again.
   */
  'hook.decided': HookDecidedData;
  /** The call passed validation and permission and began running; repair tells `unknown` from `not_started` by it. */
  'tool.started': { callId: string };
  'approval.asked': { callId: string };
  'approval.decided': {
    callId: string;
    outcome: 'allow' | 'allow_session' | 'deny';
    by: 'rule' | 'mode' | 'session' | 'host' | 'user' | 'headless';
    reason?: string;
    /** With `allow_session`: the rule allowed for the rest of the session (`bash(npm test:*)`) instead of this exact call. */
    rule?: string;
    /** For an accepted plan (`exit_plan_mode`): the permission mode the host named for what follows. */
    mode?: string;
  };
  'tool.result': { callId: string; outcome: ToolOutcome; content: string; error?: string };
  'step.end': { toolResults: number };
  /**
   * The final answer of step `step` checked against the turn's output schema (`attempt` counts the answers
   * checked in the turn). An invalid one is shown to the model, `error` and all, as the next user message.
   */
  'output.checked': { valid: boolean; attempt: number; error?: string };
  'turn.end': {
    reason: StopReason;
    usage: Usage;
    cause?: CancelCause;
    error?: ProviderErrorData;
    vetoReason?: string;
  };
  /**
   * The events with seq in `replaces` are shown to the model as `summary` from now on (they stay in the
   * log). `tokensBefore`: the input tokens of the last request before it; `trigger`: why it happened;
   * `usage`: what the summarising request cost (it counts towards the turn's usage, and a replay gives it
   * back), absent in logs written before it was recorded.
   */
  compaction: {
    replaces: [number, number];
    summary: string;
    tokensBefore: number;
    trigger: CompactionTrigger;
    usage?: Usage;
  };
  /** A child agent was started for call `callId` (see `AgentSpawnedData`). */
  'agent.spawned': AgentSpawnedData;
  /** A supervised background child failed and is restarted (see `AgentRestartedData`). */
  'agent.restarted': AgentRestartedData;
  /** This agent was restarted by its supervisor after a failure (see `SessionRestartedData`). */
  'session.restarted': SessionRestartedData;
  /**
   * This agent sent mail to another agent of its tree (`to`, a session id): a message, or a background
   * child's final result (`kind: 'result'`, with the stop reason). The recipient's `inbox.queued` has the
   * same `id`; a resume delivers a sent message the recipient's log does not hold. `by: 'host'`: the host
   * sent it through `child.send()`.
   */
  'message.sent': { id: string; to: string; text: string; kind?: MailKind; reason?: StopReason; by?: 'host' };
  /** An MCP server's state changed after the agent was created (a crash, a reconnect, giving up). */
  'mcp.status': {
    server: string;
    state: 'connected' | 'disconnected' | 'reconnecting' | 'failed' | 'closed';
    error?: string;
  };
  /**
   * An MCP server's tool list changed (`tools/list_changed`, or a reconnect found other tools): from the
   * step that follows, these are its tools. Logged so projection and replay offer the same list.
   */
  'mcp.tools': { server: string; tools: McpToolEntry[] };
  'session.end': { reason: 'disposed' };
  /**
   * `agent.cancel()` was called (the chat's Esc, a host's cancel, a parent ending its subagent's call):
   * who asked, and whether queued input was cleared too. Written before what the cancel does.
   */
  'cancel.requested': { by: CancelCause; clearInbox?: boolean };
  /**
   * A stored session was continued by a new process (`resumeAgent`): what this segment of the log runs
   * with, in `session.start`'s keys (`provider`, `model`, `contextWindow`, `cwd`, `permissionMode`,
   * `limits`, `compaction`, `tools`, `mcp`) except `system`, which a resumed session keeps from its start.
   * The first event the resumed process writes; the repair of what a crash left open follows it.
   */
  'session.resumed': { config: Record<string, unknown> };
  /**
   * The environment block from this turn on (logged when it changed, or a compaction hid the last one).
   * `placement: 'message'`: the model reads it as a user message here, so the system prompt (the cached
   * prefix) never changes; without it (older sessions) it follows the system prompt, as they sent it.
   */
  environment: { text: string; placement?: 'message' };
  /**
   * The agent's permission mode changed: `by: 'plan'` when the host accepted the plan of the
   * `exit_plan_mode` call `callId`; `by: 'host'` through `agent.setPermissionMode`; `by: 'user'` when a
   * person chose it in the host's interface (the chat's `/mode`, `setPermissionMode(mode, { by: 'user' })`).
   */
  'mode.changed': { from: string; to: string; by: 'plan' | 'host' | 'user'; plan?: string; callId?: string };
};

export type LogEventType = keyof LogEventData;

/** An MCP tool as the log keeps it: the name the model sees, the server's own name, schema and access. */
export type McpToolEntry = {
  name: string;
  tool: string;
  description: string;
  inputSchema: Record<string, unknown>;
  access: 'read' | 'write';
};

/**
 * What a machine asks to be written to the session log. Machines stay pure: they name the entry in a
 * `log` action and the runtime provides the writer (SessionLog.append), which assigns seq and time.
 */
export type LogEntry = {
  [Type in LogEventType]: { type: Type; data: LogEventData[Type]; turn?: number; step?: number };
}[LogEventType];

/** A log event narrowed to one type, with that type's data. */
export type LogEventOf<K extends LogEventType> = LogEvent & { type: K; data: LogEventData[K] };

/**
 * Narrows an event to one type so its `data` is typed. It trusts the log: events are validated by
 * `parseLogLine` when read, not on every access.
 */
export function isEvent<K extends LogEventType>(event: LogEvent, type: K): event is LogEventOf<K> {
  return event.type === type;
}

/** What a store hands back on load: the events, plus what it had to repair to read them. */
export type LoadedSession = { events: LogEvent[]; warnings: string[] };

/** One live agent's claim on a session; released when the agent is disposed or its creation fails. */
export interface SessionLock {
  release(): Promise<void>;
}

/**
 * Where session logs live.
 *
 * Contract:
 * - `append` keeps order and is durable once its promise resolves. It appends only to a session that
 *   exists: one never created, or removed since, is refused with `ConfigError` and not re-created.
 * - `load` returns exactly what was appended. The one repair allowed is dropping a last line torn by a
 *   crash (a write cut off before its newline, after a valid session that starts with `session.start`),
 *   with a warning. Any other damage — a complete line that does not parse, a log written by a newer
 *   format version, a broken `seq`, content that is not a session at all — rejects with `LogFormatError`
 *   naming where, and changes nothing. A created session with nothing appended loads as an empty log
 *   (the runtime refuses to resume or fork it: nothing of the agent was recorded).
 * - A location that cannot hold the session (for the file store: a folder, an unreadable file, a path
 *   through a file) is a `ConfigError` naming it, from every method.
 * - `remove` exists only so a failed agent creation can roll back its session and must not be used on a
 *   session that finished creation.
 * - The store keeps no memory per session beyond what live agents use (held locks, pending writes): the
 *   runtime never tells it that a session is done, so it must not need to be told.
 */
export interface SessionStore {
  readonly kind: string;
  create(sessionId: string): Promise<void>;
  append(sessionId: string, events: readonly LogEvent[]): Promise<void>;
  load(sessionId: string): Promise<LoadedSession>;
  exists(sessionId: string): Promise<boolean>;
  remove(sessionId: string): Promise<void>;
  list(): Promise<string[]>;
  /**
   * Claims the session for one live writer, across every system (and, for the file store, every
   * process) using this store; rejects with `ConfigError` while another holds it, like a second resume
   * inside one system. However many callers race for it — a free session, or one whose holder crashed —
   * exactly one wins. `release` is idempotent and never releases a claim that is not its own. Optional:
   * without it, only the one-live-owner rule inside each agent system protects a session.
   */
  lock?(sessionId: string): Promise<SessionLock>;
  /**
   * The folder beside the session's log where the runtime saves its tool outputs too long for the model
   * (`<dir>/<sessionId>.outputs` for the file store), so they live and go with the log. Optional: without
   * it the runtime keeps them in a temporary folder of the agent system, removed when the system is
   * disposed.
   *
   * Contract: returns an absolute path, the same for the same id every time, without touching the disk
   * (the runtime creates the folder when it first saves there); `remove(sessionId)` removes the folder
   * with the log.
   */
  outputsFolder?(sessionId: string): string;
}
