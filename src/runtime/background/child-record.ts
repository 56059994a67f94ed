// One background child as the runtime keeps it, from the moment it has its prompt until it is disposed:
// its handle, where it is, and the run that delivers its result and disposes it.
import { AgentStateError } from '../../errors/agent-state-error.ts';
import { sentResult } from '../../session/mail-log.ts';
import { isEvent, type LogEvent, type StopReason } from '../../session/types.ts';
import type { BackgroundAgentStatus } from '../../tools/background-port.ts';
import type { Agent } from '../agent-handle.ts';
import { type RunResult, turnResult } from '../turn-result.ts';
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
  /** Its result was sent before a crash (a resumed child): it is not sent again. */
  resultSent = false;
  /** The live agent, until it is disposed. */
  agent: Agent | undefined;
  /** Its log, kept once the agent is gone. */
  readonly log: () => readonly LogEvent[];
  /** Settles once the child is disposed and its parent told. */
  done: Promise<void> = Promise.resolve();
  readonly result: Promise<RunResult>;
  private readonly stopper = new AbortController();
  private settle!: { resolve: (result: RunResult) => void; reject: (error: unknown) => void };

  /** `from`: the live child, or (one a resume found ended) its log. */
  constructor(
    readonly start: ChildStart,
    from: Agent | readonly LogEvent[],
  ) {
    this.result = new Promise<RunResult>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    // Nobody may be listening: a child disposed before its turn ended must not be an unhandled rejection.
    this.result.catch(() => undefined);
    if (!isAgent(from)) {
      this.log = () => from;
      return;
    }
    const agent = from;
    this.agent = agent;
    this.log = () => agent.log();
    const stop = agent.onLog((event) => {
      if (event.type !== 'turn.end' || event.data.reason === 'interrupted') return;
      this.turnEnded = true;
      stop();
    });
  }

  /** The record of a child a resume found ended: finished with its sent result, or stopped. */
  static ended(start: ChildStart, events: readonly LogEvent[]): ChildRecord {
    const record = new ChildRecord(start, events);
    const sent = sentResult(events);
    record.status = sent ? 'finished' : 'stopped';
    record.turnEnded = true;
    const end = events.findLast((event) => isEvent(event, 'turn.end'));
    const result = end && isEvent(end, 'turn.end') ? turnResult(events, end) : undefined;
    record.reason = sent?.reason ?? result?.reason;
    if (result) record.finish({ result });
    else record.finish({ error: new AgentStateError(`agent ${start.id} ended before its turn did`) });
    return record;
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

  /** Aborts when a stop is asked for (a wait of the child's, for its replayed mail to be due, ends then). */
  get stopSignal(): AbortSignal {
    return this.stopper.signal;
  }

  /** Asks the child to stop (cancel, cause `parent`); its run then disposes it without a result. */
  requestStop(): void {
    this.stopping = true;
    this.stopper.abort();
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

function isAgent(from: Agent | readonly LogEvent[]): from is Agent {
  return !Array.isArray(from);
}
