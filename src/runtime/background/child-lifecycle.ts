// One background child from its prompt to its disposal: its turn under its supervision (supervisor.ts and
// the chart in machines/supervision.ts), each restart (the child brought back from its own log when its
// agent is gone, `session.restarted` in its log, the work given again), its result or the failure its
// supervision escalates delivered to its parent, and its disposal.

import type { Clock } from '../../core/clock.ts';
import { AgentStateError } from '../../errors/agent-state-error.ts';
import type { RestartReport, SupervisedFailure, SupervisionInput } from '../../machines/supervision.ts';
import { offeredToolNames } from '../../session/mail-log.ts';
import { isEvent } from '../../session/types.ts';
import type { Agent } from '../agent-handle.ts';
import type { ChildSpec } from '../child-launch.ts';
import type { CreateAgentOptions } from '../options.ts';
import type { AgentTree } from '../subagents.ts';
import { type RunResult, turnResult } from '../turn-result.ts';
import type { AgentDirectory } from './agent-directory.ts';
import type { ChildRecord } from './child-record.ts';
import { type Mail, takesInput } from './mail.ts';
import { restartMessage, type SupervisionEnd, Supervisor } from './supervisor.ts';

export type LifecycleDeps = {
  tree: AgentTree;
  directory: AgentDirectory;
  clock: Clock;
  messageId: (from: string) => string;
  /** In a replayed tree: resolves once `mail`'s recipient's log is where its recording queued it. */
  recordedPosition: (mail: Mail, signal: AbortSignal) => Promise<void>;
  resumeChild: (id: string, options: CreateAgentOptions, child: ChildSpec) => Promise<Agent>;
};

export class ChildLifecycle {
  private readonly supervisor: Supervisor;

  constructor(private readonly deps: LifecycleDeps) {
    const { directory } = deps;
    this.supervisor = new Supervisor({
      clock: deps.clock,
      record: (childId) => directory.record(childId),
      report: (record, report) => this.reportRestart(record, report),
      restart: (record, restart) => this.restart(record, restart),
      onError: (record, error) => directory.reportError(record.start.parentId, error),
    });
  }

  /**
   * Runs a child's turn to its end under its supervision, delivers its result (unless it was stopped) or
   * the failure its supervision escalated, and disposes it.
   */
  async run(record: ChildRecord, supervision: Omit<SupervisionInput, 'childId' | 'policy'>): Promise<void> {
    const { id, parentId } = record.start;
    const end = await this.supervisor.supervise(record, { ...supervision, policy: record.policy });
    let outcome = record.outcome ?? { error: new AgentStateError(`agent ${id} was stopped before it ran`) };
    const delivers = !record.stopping && !record.resultSent;
    if (end.state === 'escalated' && delivers) {
      const result = await this.escalation(record, end);
      if (result) {
        outcome = { result };
        await this.deliverResult(record, result);
      }
    } else if ('result' in outcome && delivers) await this.deliverResult(record, outcome.result);
    if (record.status === 'running') record.status = record.resultSent ? 'finished' : 'stopped';
    if ('result' in outcome) record.reason = outcome.result.reason;
    const agent = record.agent;
    if (agent) {
      try {
        await agent.dispose();
      } catch (error) {
        this.deps.directory.reportError(parentId, error);
      }
      this.deps.tree.release(parentId, agent);
    }
    record.detach();
    const parent = this.deps.directory.member(parentId);
    if (parent && parent.ref.getSnapshot().status === 'active')
      parent.ref.send({ type: 'agent.childEnded', id });
    this.deps.directory.notify(parentId, { ended: id });
    record.finish(outcome);
  }

  /** `agent.restarted` in the parent's log, made durable at once: a resumed parent counts the restarts. */
  private reportRestart(record: ChildRecord, report: RestartReport): void {
    const { childId, attempt, reason, error, backoffMs } = report;
    const parent = this.deps.directory.member(record.start.parentId);
    if (!parent) return;
    parent.log.append({
      type: 'agent.restarted',
      data: {
        childSessionId: childId,
        attempt,
        reason,
        ...(error !== undefined ? { error } : {}),
        backoffMs,
      },
    });
    parent.log.flush().catch((error: unknown) => this.deps.directory.reportError(parent.agentId, error));
  }

  /** Restart `attempt`: the child (brought back from its log if its agent is gone) is given its work again. */
  private async restart(
    record: ChildRecord,
    restart: { attempt: number; failure: SupervisedFailure },
  ): Promise<void> {
    const { attempt, failure } = restart;
    const agent = await this.bringBack(record);
    // A stop that came while it was brought back: it is not given the work again.
    if (record.stopping) return;
    const member = this.deps.directory.liveMember(record.id);
    const error = failure.error !== undefined ? { error: failure.error } : {};
    member.log.append({ type: 'session.restarted', data: { attempt, reason: failure.reason, ...error } });
    const text = restartMessage(failure, attempt, record.policy?.maxRestarts ?? attempt);
    record.runTurn(() => agent.run(text, record.typed));
  }

  /**
   * The child's live agent: the one it has while that one takes input, or else (its actor failed, its log
   * stopped writing) a new one resumed from its stored log, repaired where its run broke off.
   */
  private async bringBack(record: ChildRecord): Promise<Agent> {
    const current = record.agent;
    const { id, parentId } = record.start;
    const log = this.deps.directory.member(id)?.log;
    // A log that failed a write refuses every later one (fail-stop): its agent cannot go on.
    const writes = await log?.flush().then(
      () => true,
      () => false,
    );
    if (current?.state.startsWith('ready') && writes) return current;
    if (current) {
      await current.dispose().catch((error: unknown) => this.deps.directory.reportError(parentId, error));
      this.deps.tree.release(parentId, current);
    }
    const tools = offeredToolNames(record.log());
    record.detach();
    // A child made from a definition comes back narrowed by it again (its mode and steps are not logged).
    const agentType = this.deps.tree.definitionType(parentId, record.start.agentType);
    const launch = this.deps.tree.prepareChild(parentId, { tools, agentType }, true);
    const agent = await this.deps.resumeChild(id, launch.options, launch.spec);
    record.attach(agent);
    this.deps.tree.adopt(parentId, agent);
    await agent.whenIdle();
    return agent;
  }

  /**
   * What a child whose restarts are spent reports: its last turn's result, saying the restarts are spent (a
   * child whose run broke off is brought back from its log to send it); none when it cannot be brought back.
   */
  private async escalation(record: ChildRecord, end: SupervisionEnd): Promise<RunResult | undefined> {
    const { outcome } = record;
    const spent = `(Gave up after ${end.restarts} restart${end.restarts === 1 ? '' : 's'}: ${failureText(end.failure)}.)`;
    if (outcome && 'result' in outcome) {
      const { text } = outcome.result;
      return { ...outcome.result, text: text.length > 0 ? `${text}\n${spent}` : spent };
    }
    let agent: Agent;
    try {
      agent = await this.bringBack(record);
    } catch (error) {
      this.deps.directory.reportError(record.start.parentId, error);
      return undefined;
    }
    const events = agent.log();
    const last = events.findLast((event) => isEvent(event, 'turn.end'));
    if (!last || !isEvent(last, 'turn.end')) return undefined;
    return { ...turnResult(events, last), text: spent };
  }

  /** The child's result goes to its parent's inbox; sent and delivered together, or not at all. */
  private async deliverResult(record: ChildRecord, result: RunResult): Promise<void> {
    const { id, parentId } = record.start;
    const mail: Mail = {
      id: this.deps.messageId(id),
      from: id,
      to: parentId,
      kind: 'result',
      text: result.text,
      reason: result.reason,
    };
    await this.deps.recordedPosition(mail, record.stopSignal);
    const { directory } = this.deps;
    const child = directory.member(id);
    const parent = directory.member(parentId);
    if (!child || !parent || !takesInput(parent) || record.stopping) return;
    if (directory.deliver(mail, { log: child.log, at: { turn: result.turn } })) record.status = 'finished';
  }
}

function failureText(failure: SupervisedFailure | undefined): string {
  if (!failure) return 'it failed';
  return failure.error !== undefined ? `${failure.reason}: ${failure.error}` : failure.reason;
}
