// Background agents of one system: children that work beside their parent (`spawn_agent`), the mail
// between them, waiting for them, stopping them, and releasing them when their parent is cancelled or
// disposed. What the charts must know arrives there as events (`agent.mail`, `agent.childStarted`,
// `agent.childEnded`); everything else is the runtime's bookkeeping of live agents, rebuilt from the logs on
// resume (restore.ts).

import type { Clock } from '../../core/clock.ts';
import { parseHostValue } from '../../core/host-schema.ts';
import { AgentStateError } from '../../errors/agent-state-error.ts';
import { ConfigError } from '../../errors/config-error.ts';
import { logReaches } from '../../recorded/recorded-results.ts';
import type { LogEvent } from '../../session/types.ts';
import type { BackgroundSpawnRequest } from '../../tools/background-port.ts';
import { outputOptionsOf, parseOutputOptions } from '../../tools/output-schema.ts';
import type { Agent } from '../agent-handle.ts';
import { messageSchema } from '../call-schemas.ts';
import type { ChildLaunch, ChildSpec } from '../child-launch.ts';
import { callPosition, logSpawned } from '../child-launch.ts';
import type { CreateAgentOptions } from '../options.ts';
import type { AgentTree } from '../subagents.ts';
import type { RunResult } from '../turn-result.ts';
import { AgentDirectory } from './agent-directory.ts';
import { ChildAgent } from './child-agent.ts';
import { ChildLifecycle } from './child-lifecycle.ts';
import { ChildRecord, type ChildStart, type ChildSupervision } from './child-record.ts';
import { type Mail, type MailMember, takesInput } from './mail.ts';
import { restoreChildren } from './restore.ts';

export type BackgroundDeps = {
  tree: AgentTree;
  /** The session id of the child that call `callId` of `parentId` starts (a replay gives the recorded one). */
  childId: (parentId: string, callId: string) => string;
  /** A new message id for mail from `from` (a replay gives the recorded one). */
  messageId: (from: string) => string;
  /**
   * In a replayed tree: how many events the recipient's log held when its recording queued mail `mailId`
   * (see `SubagentRecordings.mailAt`); the mail waits until the log is there.
   */
  mailAt?: (recipientId: string, mailId: string) => number | undefined;
  /** Creates a child in the same system; `signal` firing during creation rolls it back. */
  launchChild: (
    id: string,
    options: CreateAgentOptions,
    child: ChildSpec,
    signal: AbortSignal,
  ) => Promise<Agent>;
  /** Continues a child's stored session in the same system (a resumed parent's background child). */
  resumeChild: (id: string, options: CreateAgentOptions, child: ChildSpec) => Promise<Agent>;
  /** A session's stored events, or undefined when it is missing or cannot be read. */
  loadLog: (id: string) => Promise<LogEvent[] | undefined>;
  /** The system's clock: a supervised child's backoff waits on it. */
  clock: Clock;
};

export class BackgroundAgents {
  /** Who is who: live agents, children's records, addresses, listeners. */
  readonly directory = new AgentDirectory();
  /** How many children each parent has being created right now. */
  private readonly starting = new Map<string, number>();
  private readonly lifecycle: ChildLifecycle;

  constructor(private readonly deps: BackgroundDeps) {
    this.lifecycle = new ChildLifecycle({
      tree: deps.tree,
      directory: this.directory,
      clock: deps.clock,
      messageId: deps.messageId,
      recordedPosition: (mail, signal) => this.recordedPosition(mail, signal),
      resumeChild: deps.resumeChild,
    });
  }

  /** The background children `parentId` started in this system, oldest first, as its host sees them. */
  childrenOf(parentId: string): ChildAgent[] {
    return this.directory.recordsOf(parentId).map((record) => this.handleOf(record));
  }

  /** Cancels and disposes every running background child of `agentId` (each one releases its own first). */
  async release(agentId: string): Promise<void> {
    await Promise.all(this.directory.recordsOf(agentId).map((record) => this.stopRecord(record)));
  }

  /**
   * Starts `child` (live, with its prompt about to be given) as a background child of `parentId`:
   * `work` runs its turn, under its supervision; its result is then delivered and the child disposed.
   * Returns its record.
   */
  start(
    start: ChildStart,
    child: Agent,
    work: () => Promise<RunResult>,
    supervision: ChildSupervision,
  ): ChildRecord {
    const record = new ChildRecord(start, child);
    this.directory.keep(record);
    this.deps.tree.adopt(start.parentId, child);
    const parent = this.directory.member(start.parentId);
    parent?.ref.send({ type: 'agent.childStarted', id: start.id, wait: start.wait });
    const { policy, typed, ...input } = supervision;
    record.policy = policy;
    record.typed = typed;
    record.runTurn(work);
    record.done = this.lifecycle.run(record, input);
    return record;
  }

  /**
   * After `agentId` was resumed: brings back the background children its log says it started and delivers
   * the mail a crash left in flight (see restore.ts).
   */
  async restore(agentId: string): Promise<void> {
    const member = this.directory.liveMember(agentId);
    const { tree } = this.deps;
    await restoreChildren(
      {
        // A child made from a definition comes back narrowed by it again (its mode and steps are not logged).
        prepareChild: (parentId, request) =>
          tree.prepareChild(
            parentId,
            { ...request, agentType: tree.definitionType(parentId, request.agentType) },
            true,
          ),
        resumeChild: (id, launch) => this.deps.resumeChild(id, launch.options, launch.spec),
        loadLog: this.deps.loadLog,
        start: (start, child, work, supervision) => this.start(start, child, work, supervision),
        clock: this.deps.clock,
        keepEnded: (start, events) => this.directory.keep(ChildRecord.ended(start, events)),
        redeliver: (mail) => this.directory.deliver(mail),
        forget: (parentId, id) => this.directory.member(parentId)?.ref.send({ type: 'agent.childEnded', id }),
        report: (id, error) => this.directory.reportError(id, error),
      },
      { id: agentId, log: member.log },
    );
  }

  /** Starts a background child of `parentId` for call `callId`; refused with a `ConfigError`. */
  async spawn(
    parentId: string,
    callId: string,
    request: BackgroundSpawnRequest,
    signal: AbortSignal,
  ): Promise<{ id: string; notGranted?: string[] }> {
    const parent = this.directory.liveMember(parentId);
    // Children still being created count: calls side by side must not pass the limit together.
    const starting = this.starting.get(parentId) ?? 0;
    const running = this.directory.recordsOf(parentId).filter((record) => record.status === 'running').length;
    if (running + starting >= request.maxRunning)
      throw new ConfigError(
        `you already have ${running + starting} agents running, the most allowed (${request.maxRunning}): ` +
          'wait for one to finish (wait_agents) or stop one (stop_agent) first',
      );
    const launch = this.deps.tree.prepareChild(parentId, {
      tools: withSendMessage(request.tools, this.deps.tree.member(parentId)?.toolNames ?? []),
      instructions: request.instructions,
      agentType: request.agentDefinition,
      isolation: request.isolation,
    });
    this.starting.set(parentId, starting + 1);
    try {
      const { id } = await this.launch(parent, { callId, request, signal, launch });
      const notGranted = launch.definition?.notGranted ?? [];
      return notGranted.length > 0 ? { id, notGranted } : { id };
    } finally {
      const left = (this.starting.get(parentId) ?? 1) - 1;
      if (left > 0) this.starting.set(parentId, left);
      else this.starting.delete(parentId);
    }
  }

  /** Creates the child, links it in its parent's log (durably), and gives it its prompt. */
  private async launch(
    parent: MailMember,
    spawn: { callId: string; request: BackgroundSpawnRequest; signal: AbortSignal; launch: ChildLaunch },
  ): Promise<{ id: string }> {
    const { callId, request, signal } = spawn;
    const parentId = parent.agentId;
    const id = this.deps.childId(parentId, callId);
    const child = await this.deps.launchChild(id, spawn.launch.options, spawn.launch.spec, signal);
    const abandon = async () => {
      await child.dispose();
      throw new AgentStateError(`agent ${id} was not started: its parent is being cancelled or disposed`);
    };
    if (signal.aborted || !takesInput(parent)) return abandon();
    // A typed child's output is in the link too: a resume that finds it never began runs it typed.
    // The host's agent type's `output` wins over a definition's (a name is one or the other).
    const definitionOutput = spawn.launch.definition?.output;
    const typed = outputOptionsOf(request) ?? (definitionOutput ? { output: definitionOutput } : undefined);
    const output = typed && parseOutputOptions('spawn_agent', typed)?.spec;
    const policy = request.supervision;
    logSpawned(parent.log, callId, id, {
      wait: request.wait,
      ...(output ? { output } : {}),
      ...(policy ? { supervision: policy } : {}),
    });
    // The link is durable before the child works: a resumed parent finds every child it started.
    await parent.log.flush();
    if (signal.aborted || !takesInput(parent)) return abandon();
    const { description, agentType, wait, prompt } = request;
    const start = { id, parentId, callId, wait, description, agentType };
    this.start(start, child, () => child.run(prompt, typed), { policy, typed, restarts: 0 });
    return { id };
  }

  /**
   * Sends mail from `from` to `to` (its parent or one of its children): delivered and recorded as sent
   * together, or refused with a `ConfigError`. In a replayed tree it first waits (until `signal`) for the
   * recipient's log to be where its recording queued it.
   */
  async send(message: Outgoing, signal: AbortSignal): Promise<{ id: string; to: string }> {
    const { mail, sender, at } = this.outgoing(message);
    await this.recordedPosition(mail, signal);
    if (!this.directory.deliver(mail, { log: sender.log, at })) throw notTaken(mail.to);
    return { id: mail.id, to: mail.to };
  }

  /** The host's `child.send`: delivered at once (a replay gives no host mail). */
  private sendNow(message: Outgoing): string {
    const { mail, sender, at } = this.outgoing(message);
    if (!this.directory.deliver(mail, { log: sender.log, at })) throw notTaken(mail.to);
    return mail.id;
  }

  private outgoing(message: Outgoing) {
    const sender = this.directory.liveMember(message.from);
    const to = this.directory.addressOf(message.from, message.to);
    const record = this.directory.record(to);
    if (record && !record.readsMail)
      throw new ConfigError(
        record.supervisionView()?.state === 'backingOff'
          ? `agent ${to} failed and waits to be restarted: write again once it runs`
          : `agent ${to} ${doneText(record)}: it reads no more messages`,
      );
    const mail: Mail = {
      id: this.deps.messageId(message.from),
      from: message.from,
      to,
      kind: 'message',
      text: message.text,
    };
    if (message.by) mail.by = message.by;
    const at = message.callId === undefined ? {} : callPosition(sender.log, message.callId);
    return { mail, sender, at };
  }

  /** In a replayed tree, resolves once the recipient's log is where its recording queued `mail`. */
  private async recordedPosition(mail: Mail, signal: AbortSignal): Promise<void> {
    const at = this.deps.mailAt?.(mail.to, mail.id);
    const recipient = this.directory.member(mail.to);
    if (at !== undefined && recipient) await logReaches(recipient.log, at, signal);
  }

  /** Stops `record`'s child if it runs, and waits until it is disposed. */
  async stopRecord(record: ChildRecord): Promise<void> {
    if (record.status === 'running') record.requestStop();
    await record.done;
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
      supervision: () => record.supervisionView(),
      log: () => record.log(),
      send: (text) => {
        const { message } = parseHostValue('child.send', messageSchema, { message: text });
        return this.sendNow({ from: parentId, to: id, text: message, by: 'host' });
      },
      stop: () => this.stopRecord(record),
    });
  }
}

type Outgoing = { from: string; callId?: string; to: string; text: string; by?: 'host' };

function notTaken(to: string): ConfigError {
  return new ConfigError(`agent ${to} takes no messages now: it is being stopped or disposed`);
}

function doneText(record: ChildRecord): string {
  if (record.status === 'stopped' || record.stopping) return 'was stopped';
  return `has finished (${record.reason ?? 'its turn ended'})`;
}

/** An agent type's tools, with `send_message` when the parent has it: a child can always write to its parent. */
function withSendMessage(tools: readonly string[] | undefined, parentTools: readonly string[]) {
  if (tools === undefined || tools.includes('send_message') || !parentTools.includes('send_message'))
    return tools;
  return [...tools, 'send_message'];
}
