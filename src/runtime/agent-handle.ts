import { type AnyActorRef, type AnyMachineSnapshot, waitFor } from 'xstate';
import type { LiveEvent } from '../actors/live-event.ts';
import { parseHostValue } from '../core/host-schema.ts';
import type { AgentEmitted } from '../machines/agent-types.ts';
import type { CompactResult } from '../machines/compaction-types.ts';
import type { McpServerStatus } from '../mcp/tool-source.ts';
import type { PermissionMode } from '../permissions/modes.ts';
import { type PendingQuestion, pendingQuestions } from '../session/resume-point.ts';
import type { SessionLog } from '../session/session-log.ts';
import type { CancelCause, LogEvent } from '../session/types.ts';
import type { OutputOf, OutputOptions, OutputSchema } from '../tools/output-schema.ts';
import type { AgentHandleParts } from './agent-handle-parts.ts';
import { AgentInbox } from './agent-inbox.ts';
import { type AgentStream, createAgentStream, type StartTurn } from './agent-stream.ts';
import {
  type AgentSnapshot,
  contextUsageOf,
  describeActor,
  machineContexts,
  stateName,
  toolBatchOf,
} from './agent-view.ts';
import type { ChildAgent } from './background/child-agent.ts';
import {
  approveEvent,
  approveSchema,
  cancelSchema,
  compactSchema,
  denyEvent,
  denySchema,
  eventsSchema,
  permissionModeCallSchema,
  turnSchema,
} from './call-schemas.ts';
import { modeSwitch } from './mode-switch.ts';
import type { RunResult } from './turn-result.ts';
import { TurnWaiters } from './turn-waiters.ts';
import type { AgentWorktreeState } from './worktrees/worktree-life.ts';

export type { AgentStream, AgentStreamEvent } from './agent-stream.ts';
export type { ActorSnapshot, AgentSnapshot } from './agent-view.ts';
export type { DeniedCall, RunError, RunErrorKind, RunResult } from './turn-result.ts';

/** A live agent. Obtain one from `system.createAgent()`, `resumeAgent()` or `forkAgent()`. */
export class Agent {
  readonly id: string;
  private readonly ref: AnyActorRef;
  private readonly sessionLog: SessionLog;
  private readonly waiters: TurnWaiters;
  private readonly inbox: AgentInbox;
  private disposing: Promise<void> | undefined;

  /** For the runtime: hosts get agents from the system (`createAgent`, `resumeAgent`, `forkAgent`). */
  constructor(private readonly parts: AgentHandleParts) {
    ({ ref: this.ref, log: this.sessionLog } = parts);
    this.id = parts.log.sessionId;
    this.waiters = new TurnWaiters(parts.log);
    const { ref, outputs, nextId } = parts;
    const disposing = () => this.disposing !== undefined;
    this.inbox = new AgentInbox({ id: this.id, ref, waiters: this.waiters, outputs, nextId, disposing });
    parts.ref.on('compaction.settled', (event: AgentEmitted) => this.waiters.settleCompaction(event.result));
  }

  /** The session id; the same as the agent id. */
  get sessionId(): string {
    return this.id;
  }

  /**
   * Queues `message` as a follow-up and resolves when the turn that answers it has ended: its `reason`,
   * last `text`, `usage`, `turn`, the `error` that stopped it when it did not complete, and the calls
   * `denied` in it (see `RunResult`). Like every call that returns a promise, it rejects (never throws) on a
   * bad argument, and when the agent is disposed before the turn ends.
   *
   * With `output` (a zod 4 schema, another Standard Schema, or a JSON Schema of an object) the run is
   * typed: every request of its turn asks the model for JSON of that shape, the final answer is validated,
   * an answer that fails is fed back to the model up to `maxOutputRetries` times (default 2), and a
   * completed result has `output`, typed by the schema; past the retries the turn ends `invalid_output`.
   *
   * @example
   * const result = await agent.run('Which tests fail?', { output: z.object({ failing: z.array(z.string()) }) });
   * if (result.reason === 'completed') console.log(result.output.failing);
   */
  run<Schema extends OutputSchema = never>(
    message: string,
    options?: OutputOptions<Schema>,
  ): Promise<RunResult<OutputOf<Schema>>> {
    return this.inbox.run(message, 'run', options) as Promise<RunResult<OutputOf<Schema>>>;
  }

  /**
   * Runs `message` as `run()` does (typed by `output` too) and yields the turn that answers it: step
   * boundaries, text deltas, tool calls and results, then `turn.end` with the result (see `AgentStream`).
   * The iteration rejects when the turn cannot start or the agent is disposed during it; leaving the loop
   * early stops the events, not the turn. Example: `for await (const text of agent.stream('Fix it').text)`.
   */
  stream<Schema extends OutputSchema = never>(
    message: string,
    options?: OutputOptions<Schema>,
  ): AgentStream<OutputOf<Schema>> {
    const start: StartTurn = (onQueued) => this.inbox.run(message, 'stream', options, onQueued);
    const stream = createAgentStream({ agentId: this.id, bus: this.parts.bus, start, maxBuffered: 10_000 });
    return stream as AgentStream<OutputOf<Schema>>;
  }

  /** Queues input for the next turn and wakes an idle agent. Returns the inbox id. */
  followup(message: string): string {
    return this.inbox.queue('agent.followup', message);
  }

  /** Queues input for the next step of the running turn (wakes an idle agent). Returns the inbox id. */
  steer(message: string): string {
    return this.inbox.queue('agent.steer', message);
  }

  /** Queues input for the next step without waking an idle agent. Returns the inbox id. */
  inject(message: string): string {
    return this.inbox.queue('agent.inject', message);
  }

  /**
   * The background children this agent's model started with `spawn_agent` (see `backgroundAgentTools`),
   * oldest first: each one's `status`, `result`, `send(text)` and `stop()`.
   */
  children(): ChildAgent[] {
    return this.parts.children();
  }

  /**
   * Cancels the running turn, and stops the agent's background children. Queued input stays queued unless
   * `clearInbox` is set.
   */
  cancel(cause: CancelCause = 'user', options: { clearInbox?: boolean } = {}): void {
    const parsed = parseHostValue('agent.cancel', cancelSchema, { cause, options });
    this.inbox.assertLive('cancel');
    const clearInbox = parsed.options?.clearInbox ? { clearInbox: true } : {};
    this.ref.send({ type: 'agent.cancel', cause: parsed.cause ?? 'user', ...clearInbox });
  }

  /**
   * Answers a call waiting for approval (after an `approval.asked` event). `remember: 'session'` allows the
   * same call again for the session; with `rule` too (`bash(npm test:*)`), every call that rule covers.
   * For a plan (`exit_plan_mode`), `mode` names the permission mode the agent continues in (default
   * `default`).
   */
  approve(
    callId: string,
    options: { remember?: 'session'; rule?: string; mode?: PermissionMode } = {},
  ): void {
    const parsed = parseHostValue('agent.approve', approveSchema, { callId, options });
    this.inbox.assertLive('approve');
    toolBatchOf(this.ref)?.send(approveEvent(parsed));
  }

  /** The permission mode the agent's calls are decided in now. */
  get permissionMode(): PermissionMode {
    return this.parts.mode();
  }

  /**
   * Switches the agent's permission mode, logged as `mode.changed{ from, to, by }`: calls decided from
   * now on use it, and the next step offers the tools it allows (in `plan`, `exit_plan_mode` too). `by`
   * is `'host'` (default) or `'user'` when a person chose it (the chat's `/mode`); a replay gives either
   * again at the same place. A resumed session keeps the last mode its log recorded; the current mode again
   * logs nothing. A subagent cannot be switched looser than its parent's mode now, nor any agent into a mode
   * where its tools ask with no approver (`ConfigError`s); a parent switched stricter takes its subagents.
   */
  setPermissionMode(mode: PermissionMode, options?: { by?: 'host' | 'user' }): void {
    const call = options !== undefined ? { mode, options } : { mode };
    const parsed = parseHostValue('agent.setPermissionMode', permissionModeCallSchema, call);
    this.inbox.assertLive('setPermissionMode');
    const { mode: from, modeCeiling, checkMode: check } = this.parts;
    const by = parsed.options?.by ?? 'host';
    const entry = modeSwitch({ from: from(), to: parsed.mode, ceiling: modeCeiling(), by, check });
    if (entry !== undefined) this.sessionLog.append(entry);
  }

  /** Denies a call waiting for approval; `reason` is logged and shown to the model. */
  deny(callId: string, reason?: string): void {
    const parsed = parseHostValue('agent.deny', denySchema, { callId, reason });
    this.inbox.assertLive('deny');
    toolBatchOf(this.ref)?.send(denyEvent(parsed));
  }

  /**
   * Replaces the older part of the conversation, for the model, by a summary the model writes (the log
   * keeps every event and records a `compaction`). An idle agent runs a turn that only compacts, at once;
   * a running one compacts before its next step, or right after its turn when no step is due.
   * `instructions` are added to the summarising request. Resolves with what it did:
   * `{ compacted: true, replaces, tokensBefore, summary }`, or `{ compacted: false, reason }` when there
   * was nothing older to compact, a cancel or dispose came first, or the model failed (`error`). Calls
   * made while one is pending share its result. Rejects (never throws) on a bad argument.
   */
  compact(options: { instructions?: string } = {}): Promise<CompactResult> {
    return new Promise((resolve, reject) => {
      const parsed = parseHostValue('agent.compact', compactSchema, { options }).options ?? {};
      this.inbox.assertLive('compact');
      this.waiters.forCompaction(resolve, reject);
      const instructions = parsed.instructions !== undefined ? { instructions: parsed.instructions } : {};
      this.ref.send({ type: 'agent.compact', ...instructions });
    });
  }

  /**
   * Resolves with the result of turn `turn` once it has ended and its log is flushed, at once when the log
   * already holds its end; rejects when the agent is disposed first. After `resumeAgent` continued a turn
   * that was waiting (`pendingApprovals()` lists its questions), this is how a host learns how it ended.
   */
  whenTurnEnds(turn: number): Promise<RunResult> {
    const parsed = parseHostValue('agent.whenTurnEnds', turnSchema, { turn }).turn;
    return this.waiters.forTurn(parsed, this.disposing !== undefined);
  }

  /**
   * The calls waiting for a person's decision now, from the log: what `agent.approve()` / `agent.deny()`
   * answer. A resumed agent that was waiting asks the same questions again.
   */
  pendingApprovals(): PendingQuestion[] {
    return pendingQuestions(this.sessionLog.events);
  }

  /** Resolves when no turn is running and none is about to start (or the agent is gone). */
  async whenIdle(): Promise<void> {
    const idle = (snapshot: AnyMachineSnapshot) =>
      snapshot.status !== 'active' || snapshot.matches({ ready: 'idle' });
    await waitFor(this.ref, idle, { timeout: Number.POSITIVE_INFINITY });
  }

  /** Cancels, waits for everything to settle, flushes the log and unregisters. Idempotent. */
  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      if (this.ref.getSnapshot().status === 'active') {
        this.ref.send({ type: 'agent.dispose' });
        await waitFor(this.ref, (snapshot) => snapshot.status !== 'active', {
          timeout: Number.POSITIVE_INFINITY,
        });
      }
      this.parts.release();
      this.parts.bus.close();
      this.waiters.rejectAll();
    })();
    return this.disposing;
  }

  /**
   * Live events from now on: every log event, model deltas and tool progress. Ends on dispose. A consumer
   * more than `maxBuffered` (default 10,000) events behind is cut off with `AgentStateError` rather than
   * letting memory grow without bound; `agent.log()` still has every logged event.
   */
  events(options: { maxBuffered?: number } = {}): AsyncIterableIterator<LiveEvent> {
    return this.parts.bus.iterate(parseHostValue('agent.events', eventsSchema, { options }).options ?? {});
  }

  /** The state of every machine of this agent right now, and how full its context is. */
  snapshot(): AgentSnapshot {
    return { ...describeActor(this.ref, 'agent'), contextUsage: contextUsageOf(this.ref) };
  }

  /**
   * The context of each machine of this agent right now (agent, turn, step, tool batch), keyed by its
   * path of actor ids below the agent (`''`, `turn`, `turn/step`, `turn/step/batch`). For inspection:
   * the values are the machines' own, so copy before keeping them.
   */
  machineContexts(): Map<string, unknown> {
    return machineContexts(this.ref);
  }

  /**
   * Calls `listener` synchronously with every event appended to the log from now on, inside the
   * transition that wrote it (for inspection and replay: it must be cheap and must not throw; read
   * `snapshot()` from a microtask, once the transition is over). Returns the unsubscribe function.
   */
  onLog(listener: (event: LogEvent) => void): () => void {
    return this.sessionLog.subscribe(listener);
  }

  /**
   * The MCP servers this agent started: name, transport, state (`connected`, `disconnected` while it
   * reconnects, `failed`, `closed`), process id, the tools offered and the ones skipped with the reason.
   */
  mcpServers(): McpServerStatus[] {
    return this.parts.servers();
  }

  /** An isolated agent's worktree: where it is, then how dispose ended it (see `AgentWorktreeState`). */
  get worktree(): AgentWorktreeState | undefined {
    return this.parts.worktree();
  }

  /** The session's events so far. */
  log(): readonly LogEvent[] {
    return this.sessionLog.events;
  }

  /** The lifecycle state: `ready.idle`, `ready.running`, `disposing.flushing`, `disposed`, … */
  get state(): string {
    return stateName(this.ref.getSnapshot().value);
  }
}
