// Background agents of one system: children that work beside their parent (`spawn_agent`), the mail
// between them, waiting for them, stopping them, and releasing them when their parent is cancelled or
// disposed. What the charts must know arrives there as events (`agent.mail`, `agent.childStarted`,
// `agent.childEnded`); everything else is the runtime's bookkeeping of live agents, rebuilt from the logs on
// resume (restore.ts).
import type { Clock } from '../../core/clock.ts';
import { AgentStateError } from '../../errors/agent-state-error.ts';
import { ConfigError } from '../../errors/config-error.ts';
import { messageOf } from '../../errors/describe-value.ts';
import type {
  BackgroundAgentStatus,
  BackgroundAgentsPort,
  BackgroundSpawnRequest,
  BackgroundWaitOutcome,
} from '../../tools/background-port.ts';
import type { Agent } from '../agent-handle.ts';
import type { ChildSpec } from '../child-launch.ts';
import type { CreateAgentOptions } from '../options.ts';
import { type AgentTree, callPosition, logSpawned } from '../subagents.ts';
import type { RunResult } from '../turn-result.ts';
import { ChildAgent } from './child-agent.ts';
import { ChildRecord, type ChildStart } from './child-record.ts';
import { deliver, type Mail, type MailMember, takesInput } from './mail.ts';
import { type MailNews, waitForMail } from './wait.ts';

export type BackgroundDeps = {
  tree: AgentTree;
  clock: Clock;
  /** The session id of the child that call `callId` of `parentId` starts (a replay gives the recorded one). */
  childId: (parentId: string, callId: string) => string;
  /** A new message id. */
  messageId: () => string;
  /** Creates a child in the same system; `signal` firing during creation rolls it back. */
  launchChild: (
    id: string,
    options: CreateAgentOptions,
    child: ChildSpec,
    signal: AbortSignal,
  ) => Promise<Agent>;
};

export class BackgroundAgents {
  private readonly members = new Map<string, MailMember>();
  private readonly records = new Map<string, ChildRecord>();
  private readonly listeners = new Map<string, Set<(news: MailNews) => void>>();

  constructor(private readonly deps: BackgroundDeps) {}

  /** `member` takes and sends mail until `leave` (every agent of the system joins once it is live). */
  join(member: MailMember): void {
    this.members.set(member.agentId, member);
  }

  /** `agentId` is gone: so is what the system kept of its children (they were released before). */
  leave(agentId: string): void {
    this.members.delete(agentId);
    for (const record of this.recordsOf(agentId)) this.records.delete(record.id);
  }

  /** The capability one tool call of `agentId` gets (`ToolContext.backgroundAgents`). */
  portFor(call: { agentId: string; callId: string; signal: AbortSignal }): BackgroundAgentsPort {
    const { agentId, callId, signal } = call;
    return {
      spawn: (request) => this.spawn(agentId, callId, request, signal),
      send: (to, text) => this.send({ from: agentId, callId, to, text }),
      wait: (ids, timeoutMs) => this.wait(agentId, ids, timeoutMs, signal),
      stop: (id) => this.stop(agentId, id),
      list: () => this.list(agentId),
    };
  }

  /** The background children `parentId` started in this system, oldest first, as its host sees them. */
  childrenOf(parentId: string): ChildAgent[] {
    return this.recordsOf(parentId).map((record) => this.handleOf(record));
  }

  /** Cancels and disposes every running background child of `agentId` (each one releases its own first). */
  async release(agentId: string): Promise<void> {
    await Promise.all(this.recordsOf(agentId).map((record) => this.stopRecord(record)));
  }

  /**
   * Starts `child` (live, with its prompt about to be given) as a background child of `parentId`:
   * `work` runs its turn; its result is then delivered and the child disposed. Returns its record.
   */
  start(start: ChildStart, child: Agent, work: () => Promise<RunResult>): ChildRecord {
    const record = new ChildRecord(start, child);
    this.records.set(start.id, record);
    this.deps.tree.adopt(start.parentId, child);
    const parent = this.members.get(start.parentId);
    parent?.ref.send({ type: 'agent.childStarted', id: start.id, wait: start.wait });
    record.done = this.run(record, work);
    return record;
  }

  /** Delivers mail a log says was sent and the recipient's log lacks (a resume); false when it cannot. */
  redeliver(mail: Mail): boolean {
    const recipient = this.members.get(mail.to);
    return recipient !== undefined && this.accepts(recipient) && deliver(mail, recipient);
  }

  private async spawn(
    parentId: string,
    callId: string,
    request: BackgroundSpawnRequest,
    signal: AbortSignal,
  ): Promise<{ id: string }> {
    const parent = this.liveMember(parentId);
    const running = this.recordsOf(parentId).filter((record) => record.status === 'running').length;
    if (running >= request.maxRunning)
      throw new ConfigError(
        `you already have ${running} agents running, the most allowed (${request.maxRunning}): wait for ` +
          'one to finish (wait_agents) or stop one (stop_agent) first',
      );
    // The child can always write to its parent.
    const tools = request.tools === undefined ? undefined : [...new Set([...request.tools, 'send_message'])];
    const { options, spec } = this.deps.tree.prepareChild(parentId, {
      tools: tools?.filter((name) => this.deps.tree.member(parentId)?.toolNames.includes(name)),
      instructions: request.instructions,
    });
    const id = this.deps.childId(parentId, callId);
    const child = await this.deps.launchChild(id, options, spec, signal);
    const abandon = async () => {
      await child.dispose();
      throw new AgentStateError(`agent ${id} was not started: its parent is being cancelled or disposed`);
    };
    if (signal.aborted || !takesInput(parent)) return abandon();
    logSpawned(parent.log, callId, id, { wait: request.wait });
    // The link is durable before the child works: a resumed parent finds every child it started.
    await parent.log.flush();
    if (signal.aborted || !takesInput(parent)) return abandon();
    const { description, agentType, wait, prompt } = request;
    this.start({ id, parentId, callId, wait, description, agentType }, child, () => child.run(prompt));
    return { id };
  }

  private send(message: { from: string; callId?: string; to: string; text: string; by?: 'host' }): {
    id: string;
    to: string;
  } {
    const sender = this.liveMember(message.from);
    const to = this.recipientFor(message.from, message.to);
    const record = this.records.get(to);
    if (record && !record.readsMail)
      throw new ConfigError(`agent ${to} ${doneText(record)}: it reads no more messages`);
    const id = this.deps.messageId();
    const mail: Mail = { id, from: message.from, to, kind: 'message', text: message.text };
    if (message.by) mail.by = message.by;
    const at = message.callId === undefined ? {} : callPosition(sender.log, message.callId);
    const recipient = this.members.get(to);
    if (!recipient || !this.accepts(recipient) || !deliver(mail, recipient, { log: sender.log, at }))
      throw new ConfigError(`agent ${to} takes no messages now: it is being stopped or disposed`);
    this.notify(to, { from: message.from });
    return { id, to };
  }

  private wait(
    agentId: string,
    ids: readonly string[] | undefined,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<BackgroundWaitOutcome> {
    this.liveMember(agentId);
    const targets = ids
      ? [...new Set(ids.map((id) => this.recipientFor(agentId, id)))]
      : this.recordsOf(agentId)
          .filter((record) => record.status === 'running')
          .map((record) => record.id);
    const views = () => targets.map((id) => this.viewOf(agentId, id));
    // A wait for the parent ends only with its mail (or the time); children end it by finishing too.
    const parent = this.parentOf(agentId);
    const settled = () => targets.every((id) => id !== parent && this.records.get(id)?.status !== 'running');
    return waitForMail({
      targets,
      views,
      settled,
      listen: (listener) => this.listen(agentId, listener),
      clock: this.deps.clock,
      timeoutMs,
      signal,
    });
  }

  private async stop(parentId: string, id: string): Promise<BackgroundAgentStatus> {
    this.liveMember(parentId);
    const record = this.records.get(id);
    if (!record || record.start.parentId !== parentId) throw this.unknown(parentId, id);
    await this.stopRecord(record);
    return record.view();
  }

  private list(agentId: string): BackgroundAgentStatus[] {
    const parent = this.parentOf(agentId);
    const children = this.recordsOf(agentId).map((record) => record.view());
    return parent === undefined ? children : [this.viewOf(agentId, parent), ...children];
  }

  private async stopRecord(record: ChildRecord): Promise<void> {
    if (record.status === 'running') record.requestStop();
    await record.done;
  }

  /** Runs a child's turn to its end, delivers its result (unless it was stopped) and disposes it. */
  private async run(record: ChildRecord, work: () => Promise<RunResult>): Promise<void> {
    const { id, parentId } = record.start;
    let outcome: { result: RunResult } | { error: unknown };
    try {
      outcome = { result: await work() };
    } catch (error) {
      outcome = { error };
    }
    if ('result' in outcome && !record.stopping) this.deliverResult(record, outcome.result);
    if (record.status === 'running') record.status = 'stopped';
    if ('result' in outcome) record.reason = outcome.result.reason;
    const agent = record.agent!;
    try {
      await agent.dispose();
    } catch (error) {
      this.reportError(parentId, error);
    }
    record.agent = undefined;
    this.deps.tree.release(parentId, agent);
    const parent = this.members.get(parentId);
    if (parent && parent.ref.getSnapshot().status === 'active')
      parent.ref.send({ type: 'agent.childEnded', id });
    this.notify(parentId, { ended: id });
    record.finish(outcome);
  }

  /** The child's result goes to its parent's inbox; sent and delivered together, or not at all. */
  private deliverResult(record: ChildRecord, result: RunResult): void {
    const { id, parentId } = record.start;
    const child = this.members.get(id);
    const parent = this.members.get(parentId);
    if (!child || !parent || !takesInput(parent)) return;
    const mail: Mail = {
      id: this.deps.messageId(),
      from: id,
      to: parentId,
      kind: 'result',
      text: result.text,
      reason: result.reason,
    };
    if (!deliver(mail, parent, { log: child.log, at: { turn: result.turn } })) return;
    record.status = 'finished';
    this.notify(parentId, { from: id });
  }

  private handleOf(record: ChildRecord): ChildAgent {
    const { id, parentId, description, agentType, wait } = record.start;
    return new ChildAgent({
      id,
      parentId,
      description,
      agentType,
      wait,
      result: record.result,
      status: () => record.status,
      log: record.log,
      send: (text) => this.send({ from: parentId, to: id, text, by: 'host' }).id,
      stop: () => this.stopRecord(record),
    });
  }

  private recordsOf(parentId: string): ChildRecord[] {
    return [...this.records.values()].filter((record) => record.start.parentId === parentId);
  }

  /** The background parent of `agentId`, if it is a background child. */
  private parentOf(agentId: string): string | undefined {
    return this.records.get(agentId)?.start.parentId;
  }

  /** The session id `name` stands for, for `agentId`: `parent`, or one of its children (refused otherwise). */
  private recipientFor(agentId: string, name: string): string {
    if (name === 'parent' || name === this.parentOf(agentId)) {
      const parent = this.parentOf(agentId);
      if (parent === undefined)
        throw new ConfigError('you have no parent agent: only an agent started by spawn_agent has one');
      return parent;
    }
    if (this.records.get(name)?.start.parentId === agentId) return name;
    throw this.unknown(agentId, name);
  }

  private viewOf(agentId: string, id: string): BackgroundAgentStatus {
    if (id === this.parentOf(agentId)) return { id, relation: 'parent', status: 'running' };
    return this.records.get(id)!.view();
  }

  private unknown(agentId: string, id: string): ConfigError {
    const mine = this.recordsOf(agentId).map((record) => record.id);
    const known = [...(this.parentOf(agentId) ? ['parent'] : []), ...mine];
    return new ConfigError(
      `there is no agent "${id}" among yours (${known.length > 0 ? `yours: ${known.join(', ')}` : 'you have started none'})`,
    );
  }

  /** The live member `agentId`; a call from an agent that is gone is a runtime fault, not a model's error. */
  private liveMember(agentId: string): MailMember {
    const member = this.members.get(agentId);
    if (!member) throw new AgentStateError(`agent "${agentId}" is not live`);
    return member;
  }

  /** Whether a member takes mail now: ready, and (a background child) still reading it. */
  private accepts(member: MailMember): boolean {
    const record = this.records.get(member.agentId);
    return takesInput(member) && (record === undefined || record.readsMail);
  }

  /** A failure nobody waits for (a child that could not be disposed), told to the agent's host. */
  private reportError(agentId: string, error: unknown): void {
    this.members.get(agentId)?.publish({ type: 'runtime.error', agentId, message: messageOf(error) });
  }

  private listen(agentId: string, listener: (news: MailNews) => void): () => void {
    const set = this.listeners.get(agentId) ?? new Set();
    this.listeners.set(agentId, set);
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(agentId);
    };
  }

  private notify(agentId: string, news: MailNews): void {
    for (const listener of [...(this.listeners.get(agentId) ?? [])]) {
      try {
        listener(news);
      } catch (error) {
        this.reportError(agentId, new Error(`a wait listener failed: ${messageOf(error)}`));
      }
    }
  }
}

function doneText(record: ChildRecord): string {
  if (record.status === 'stopped' || record.stopping) return 'was stopped';
  return `has finished (${record.reason ?? 'its turn ended'})`;
}
