// Who is who among the agents of one system, for background agents: every live agent that takes mail, every
// background child's record, the names an agent may address (`parent`, its own children), and who is
// listening for news of an agent's mail and children (`wait_agents`).
import { AgentStateError } from '../../errors/agent-state-error.ts';
import { ConfigError } from '../../errors/config-error.ts';
import { messageOf } from '../../errors/describe-value.ts';
import type { BackgroundAgentStatus } from '../../tools/background-port.ts';
import type { ChildRecord } from './child-record.ts';
import { deliver, type Mail, type MailMember, takesInput } from './mail.ts';
import type { MailNews } from './wait.ts';

export class AgentDirectory {
  private readonly members = new Map<string, MailMember>();
  private readonly records = new Map<string, ChildRecord>();
  private readonly listeners = new Map<string, Set<(news: MailNews) => void>>();

  /** `member` takes and sends mail until `leave` (every agent of the system joins once it is live). */
  join(member: MailMember): void {
    this.members.set(member.agentId, member);
  }

  /** `agentId` is gone: so is what the system kept of its children (they were released before). */
  leave(agentId: string): void {
    this.members.delete(agentId);
    for (const record of this.recordsOf(agentId)) this.records.delete(record.id);
  }

  member(agentId: string): MailMember | undefined {
    return this.members.get(agentId);
  }

  /** The live member `agentId`; a call from an agent that is gone is a runtime fault, not a model's error. */
  liveMember(agentId: string): MailMember {
    const member = this.members.get(agentId);
    if (!member) throw new AgentStateError(`agent "${agentId}" is not live`);
    return member;
  }

  keep(record: ChildRecord): ChildRecord {
    this.records.set(record.id, record);
    return record;
  }

  record(agentId: string): ChildRecord | undefined {
    return this.records.get(agentId);
  }

  /** The background children `parentId` started (live or ended), oldest first. */
  recordsOf(parentId: string): ChildRecord[] {
    return [...this.records.values()].filter((record) => record.start.parentId === parentId);
  }

  /** The background parent of `agentId`, if it is a background child. */
  parentOf(agentId: string): string | undefined {
    return this.records.get(agentId)?.start.parentId;
  }

  /** The session id `name` stands for, for `agentId`: `parent`, or one of its children (refused otherwise). */
  addressOf(agentId: string, name: string): string {
    const parent = this.parentOf(agentId);
    if (name === 'parent' || (parent !== undefined && name === parent)) {
      if (parent === undefined)
        throw new ConfigError('you have no parent agent: only an agent started by spawn_agent has one');
      return parent;
    }
    if (this.records.get(name)?.start.parentId === agentId) return name;
    throw this.unknown(agentId, name);
  }

  /** How `agentId` sees `id` (its parent or one of its children) in `list_agents` and `wait_agents`. */
  viewOf(agentId: string, id: string): BackgroundAgentStatus {
    if (id === this.parentOf(agentId)) return { id, relation: 'parent', status: 'running' };
    return this.records.get(id)!.view();
  }

  /** The refusal of a name `agentId` may not address, listing the ones it may. */
  unknown(agentId: string, id: string): ConfigError {
    const known = [
      ...(this.parentOf(agentId) ? ['parent'] : []),
      ...this.recordsOf(agentId).map((record) => record.id),
    ];
    const yours = known.length > 0 ? `yours: ${known.join(', ')}` : 'you have started none';
    return new ConfigError(`there is no agent "${id}" among yours (${yours})`);
  }

  /** Whether a member takes mail now: ready, and (a background child) still reading it. */
  accepts(member: MailMember): boolean {
    const record = this.records.get(member.agentId);
    return takesInput(member) && (record === undefined || record.readsMail);
  }

  /**
   * Delivers `mail` (with the sender's `message.sent` when `sender` is given) if its recipient takes it now,
   * and tells those waiting for the recipient's mail. False, with nothing done, when it cannot.
   */
  deliver(mail: Mail, sender?: Parameters<typeof deliver>[2]): boolean {
    const recipient = this.members.get(mail.to);
    if (recipient === undefined || !this.accepts(recipient) || !deliver(mail, recipient, sender))
      return false;
    this.notify(mail.to, { from: mail.from });
    return true;
  }

  /** Calls `listener` with news of `agentId`'s mail and children; returns how to stop. */
  listen(agentId: string, listener: (news: MailNews) => void): () => void {
    const set = this.listeners.get(agentId) ?? new Set();
    this.listeners.set(agentId, set);
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(agentId);
    };
  }

  notify(agentId: string, news: MailNews): void {
    for (const listener of [...(this.listeners.get(agentId) ?? [])]) {
      try {
        listener(news);
      } catch (error) {
        this.reportError(agentId, new Error(`a wait listener failed: ${messageOf(error)}`));
      }
    }
  }

  /** A failure nobody waits for (a child that could not be disposed), told to the agent's host. */
  reportError(agentId: string, error: unknown): void {
    this.members.get(agentId)?.publish({ type: 'runtime.error', agentId, message: messageOf(error) });
  }
}
