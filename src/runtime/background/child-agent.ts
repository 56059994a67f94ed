import type { LogEvent } from '../../session/types.ts';
import type { RunResult } from '../turn-result.ts';

/** Where a background child is: working, done (its result was sent to its parent), or stopped without one. */
export type ChildStatus = 'running' | 'finished' | 'stopped';

/**
 * Where a supervised child's supervision is (see `SupervisionPolicy`): its turn runs (`running`), it waits to
 * be restarted (`backingOff`), or it is being brought back (`restarting`); `restarts` counts the restarts
 * decided so far.
 */
export type SupervisionView = { state: 'running' | 'backingOff' | 'restarting'; restarts: number };

/** What a `ChildAgent` handle reads and does through the runtime. */
export type ChildAgentParts = {
  id: string;
  parentId: string;
  description: string;
  agentType: string | undefined;
  wait: boolean;
  result: Promise<RunResult>;
  status: () => ChildStatus;
  supervision: () => SupervisionView | undefined;
  log: () => readonly LogEvent[];
  send: (text: string) => string;
  stop: () => Promise<void>;
};

/**
 * A background child of an agent, as its host sees it (`agent.children()`): started by the parent's model
 * with `spawn_agent`, it works beside its parent until its turn ends; its result is delivered to the
 * parent's inbox and then it is disposed.
 *
 * @example
 * for (const child of agent.children()) {
 *   child.send('Also check the README.');
 *   console.log(child.id, (await child.result).text);
 * }
 */
export class ChildAgent {
  /** The child's session id (its agent id). */
  readonly id: string;
  /** The session id of the agent that started it. */
  readonly parentId: string;
  /** The short label the model gave it (or the first line of its prompt). */
  readonly description: string;
  /** The agent type it was made from (`spawn_agent`'s `agent_type`), if any. */
  readonly agentType: string | undefined;
  /** Whether its parent's turn waits for it (`wait`, default true). */
  readonly wait: boolean;
  /**
   * The child's `RunResult` once its turn has ended (`reason: 'canceled'` when it was stopped); for a
   * typed agent type (`AgentType.output`) that completed, `output` is the value its schema gave. A
   * supervised child stopped while it waited to be restarted resolves with its failed turn's result.
   * Rejects only when the child was disposed before its turn could end (the system disposed mid-creation),
   * or was stopped after its run broke off (its log could not be written).
   */
  readonly result: Promise<RunResult>;

  /** For the runtime: hosts get children from `agent.children()`. */
  constructor(private readonly parts: ChildAgentParts) {
    ({
      id: this.id,
      parentId: this.parentId,
      description: this.description,
      agentType: this.agentType,
      wait: this.wait,
      result: this.result,
    } = parts);
  }

  /** `running`, `finished` (its result was sent to its parent) or `stopped` (cancelled, no result). */
  get status(): ChildStatus {
    return this.parts.status();
  }

  /** Its supervision while it works, for a child whose agent type restarts on failure; else `undefined`. */
  get supervision(): SupervisionView | undefined {
    return this.parts.supervision();
  }

  /**
   * The child's session events so far (its own log, linked from its parent's by `agent.spawned`); its live
   * `Agent` is in `system.list()` while it runs.
   */
  log(): readonly LogEvent[] {
    return this.parts.log();
  }

  /**
   * Sends the child a message as its parent does (`send_message`): logged as `message.sent{ by: 'host' }`
   * in the parent's session and read at the child's next step. Returns the message id; throws a
   * `ConfigError` when the child no longer reads messages (its turn has ended, or it was stopped).
   */
  send(text: string): string {
    return this.parts.send(text);
  }

  /** Stops the child (cancel, cause `parent`, then dispose); it sends no result. Resolves once it is disposed. */
  stop(): Promise<void> {
    return this.parts.stop();
  }
}
