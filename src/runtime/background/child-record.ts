// One background child as the runtime keeps it, from the moment it has its prompt until it is disposed:
// its handle, where it is, and the run that delivers its result and disposes it.
import { AgentStateError } from '../../errors/agent-state-error.ts';
import type { LogEvent, StopReason } from '../../session/types.ts';
import type { BackgroundAgentStatus } from '../../tools/background-port.ts';
import type { Agent } from '../agent-handle.ts';
import type { RunResult } from '../turn-result.ts';
import type { ChildStatus } from './child-agent.ts';

/** What a child is started as: its id, its parent and the call that started it, and how it was asked for. */
export type ChildStart = {
  id: string;
  parentId: string;
  callId: string;
  wait: boolean;
  description: string;
  agentType: string | undefined;
};

export class ChildRecord {
  status: ChildStatus = 'running';
  reason: StopReason | undefined;
  /** Its turn has ended: it reads no more mail (what came after would never be answered). */
  turnEnded = false;
  /** A stop was asked for: its turn's end is not a result to deliver. */
  stopping = false;
  /** The live agent, until it is disposed. */
  agent: Agent | undefined;
  /** Its log, kept once the agent is gone. */
  readonly log: () => readonly LogEvent[];
  /** Settles once the child is disposed and its parent told. */
  done: Promise<void> = Promise.resolve();
  readonly result: Promise<RunResult>;
  private settle!: { resolve: (result: RunResult) => void; reject: (error: unknown) => void };

  constructor(
    readonly start: ChildStart,
    agent: Agent,
  ) {
    this.agent = agent;
    this.log = () => agent.log();
    this.result = new Promise<RunResult>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    // Nobody may be listening: a child disposed before its turn ended must not be an unhandled rejection.
    this.result.catch(() => undefined);
    const stop = agent.onLog((event) => {
      if (event.type !== 'turn.end' || event.data.reason === 'interrupted') return;
      this.turnEnded = true;
      stop();
    });
  }

  get id(): string {
    return this.start.id;
  }

  /** Whether mail to it is read: it runs, its turn has not ended, and no stop was asked for. */
  get readsMail(): boolean {
    return this.status === 'running' && !this.turnEnded && !this.stopping;
  }

  /** How `list_agents` and `wait_agents` show it. */
  view(): BackgroundAgentStatus {
    const { id, description, agentType } = this.start;
    return {
      id,
      relation: 'child',
      status: this.status,
      ...(this.reason !== undefined ? { reason: this.reason } : {}),
      description,
      ...(agentType !== undefined ? { agentType } : {}),
    };
  }

  /** Asks the child to stop (cancel, cause `parent`); its run then disposes it without a result. */
  requestStop(): void {
    this.stopping = true;
    try {
      this.agent?.cancel('parent');
    } catch (error) {
      // A child already going away needs no cancel; anything else is a real fault.
      if (!AgentStateError.isInstance(error)) throw error;
    }
  }

  finish(outcome: { result: RunResult } | { error: unknown }): void {
    if ('result' in outcome) this.settle.resolve(outcome.result);
    else this.settle.reject(outcome.error);
  }
}
