// One background child as the runtime keeps it, from the moment it has its prompt until it is disposed:
// its handle, where it is, and the run that delivers its result and disposes it.
import type { AnyActorRef } from 'xstate';
import { AgentStateError } from '../../errors/agent-state-error.ts';
import type { SupervisionInput } from '../../machines/supervision.ts';
import { sentResult } from '../../session/mail-log.ts';
import type { SupervisionSpec } from '../../session/types.ts';
import { isEvent, type LogEvent, type StopReason } from '../../session/types.ts';
import type { BackgroundAgentStatus } from '../../tools/background-port.ts';
import type { OutputOptions } from '../../tools/output-schema.ts';
import type { Agent } from '../agent-handle.ts';
import { type RunResult, turnResult } from '../turn-result.ts';
import type { ChildStatus, SupervisionView } from './child-agent.ts';

/** What a child is started as: its id, its parent and the call that started it, and how it was asked for. */
export type ChildStart = {
  id: string;
  parentId: string;
  callId: string;
  wait: boolean;
  description: string;
  agentType: string | undefined;
};

/** How a child is supervised and what its restarts run again; a resumed parent adds what its log says. */
export type ChildSupervision = {
  policy: SupervisionSpec | undefined;
  typed: OutputOptions | undefined;
} & Omit<SupervisionInput, 'childId' | 'policy'>;

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
  /** Settles once the child is disposed and its parent told. */
  done: Promise<void> = Promise.resolve();
  /** Settles once the child's current turn has ended (or its run broke off): see `outcome`. */
  turn: Promise<void> = Promise.resolve();
  /** How the child's last turn ended: its result, or why its run broke off. */
  outcome: { result: RunResult } | { error: unknown } | undefined;
  /** How it is restarted on failure (`undefined`: never), and the run its restarts give again. */
  policy: SupervisionSpec | undefined;
  typed: OutputOptions | undefined;
  /** Its supervision, while the child works. */
  supervisor: AnyActorRef | undefined;
  private events: readonly LogEvent[] = [];
  private stopListening: () => void = () => {};
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
    if (isAgent(from)) this.attach(from);
    else this.events = from;
  }

  /** Its log: the live agent's, or what was kept of it. */
  log(): readonly LogEvent[] {
    return this.agent?.log() ?? this.events;
  }

  /**
   * `agent` is the child from now on (the first one, or the one a restart resumed from its log): a turn's end
   * that is not an interruption stops its reading mail.
   */
  attach(agent: Agent): void {
    this.stopListening();
    this.agent = agent;
    this.stopListening = agent.onLog((event) => {
      if (event.type === 'turn.end' && event.data.reason !== 'interrupted') this.turnEnded = true;
    });
  }

  /** The agent is gone: its log is kept as it was. */
  detach(): void {
    this.events = this.agent?.log() ?? this.events;
    this.stopListening();
    this.agent = undefined;
  }

  /** `work` is the child's turn now: its outcome is kept for the supervision and the result. */
  runTurn(work: () => Promise<RunResult>): void {
    this.turnEnded = false;
    let turn: Promise<RunResult>;
    try {
      turn = work();
    } catch (error) {
      turn = Promise.reject(error);
    }
    this.turn = turn.then(
      (result) => {
        this.outcome = { result };
      },
      (error: unknown) => {
        this.outcome = { error };
      },
    );
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

  /** Where its supervision is, while a supervised child works. */
  supervisionView(): SupervisionView | undefined {
    const snapshot = this.policy ? this.supervisor?.getSnapshot() : undefined;
    if (snapshot?.status !== 'active') return undefined;
    return { state: snapshot.value as SupervisionView['state'], restarts: snapshot.context.restarts };
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

  /**
   * Asks the child to stop (cancel, cause `parent`); its run then disposes it without a result. A child
   * waiting to be restarted is not restarted.
   */
  requestStop(): void {
    this.stopping = true;
    this.stopper.abort();
    this.supervisor?.send({ type: 'supervision.stop' });
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
