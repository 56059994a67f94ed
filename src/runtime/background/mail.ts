// Mail between the agents of one tree: a background child's messages and final result to its parent, a
// parent's (or its host's) messages to a child. Delivery is one synchronous step: the recipient's chart
// logs `inbox.queued` (naming the sender) and the sender's log gets `message.sent` with the same id, or
// neither happens. The recipient's log is written only after the sender's (`writeAfter`), so a crash
// leaves at most a sent message the recipient's log lacks, which a resume delivers (restore.ts); the id
// makes that happen once.
import type { AnyActorRef } from 'xstate';
import type { Publish } from '../../actors/live-event.ts';
import type { MailEvent } from '../../machines/inbox.ts';
import type { SessionLog } from '../../session/session-log.ts';
import type { MailKind, StopReason } from '../../session/types.ts';

/** One agent of the system as mail sees it: its actor (the inbox), its log, who started it, its live events. */
export type MailMember = {
  agentId: string;
  ref: AnyActorRef;
  log: SessionLog;
  parent: string | undefined;
  publish: Publish;
};

/** One piece of mail: `id` is the sender's message id, the same in both logs. */
export type Mail = {
  id: string;
  from: string;
  to: string;
  kind: MailKind;
  text: string;
  /** A result's stop reason. */
  reason?: StopReason;
  /** Sent by the host through `child.send()`, not by the parent's model. */
  by?: 'host';
};

/** What the recipient's model reads: who wrote, and what. */
export function mailText(mail: Mail, toParent: boolean): string {
  if (mail.kind === 'result') {
    const text = mail.text.length > 0 ? mail.text : '(it gave no final text)';
    return `Agent ${mail.from} finished (${mail.reason ?? 'completed'}):\n${text}`;
  }
  return toParent
    ? `Message from agent ${mail.from}:\n${mail.text}`
    : `Message from your parent agent (${mail.from}):\n${mail.text}`;
}

/** Whether `member`'s inbox takes input now: alive and ready (not being created or disposed). */
export function takesInput(member: MailMember): boolean {
  const snapshot = member.ref.getSnapshot();
  return snapshot.status === 'active' && snapshot.matches('ready');
}

/**
 * Hands `mail` to `recipient` and, when `sender` is given, records it as sent in the sender's log at
 * `at` (the turn and step of the call that sent it). Returns false, having done nothing, when the
 * recipient takes no input. Both happen in one synchronous step: nothing else runs between them.
 */
export function deliver(
  mail: Mail,
  recipient: MailMember,
  sender?: { log: SessionLog; at: { turn?: number; step?: number } },
): boolean {
  if (!takesInput(recipient)) return false;
  const event: MailEvent = {
    type: 'agent.mail',
    id: mail.id,
    from: mail.from,
    kind: mail.kind,
    // Mail from the recipient's own parent goes down the tree; any other comes up from a child.
    message: mailText(mail, recipient.parent !== mail.from),
  };
  if (sender) {
    sender.log.append({ type: 'message.sent', ...sender.at, data: sentData(mail) });
    // The delivery becomes durable only after the send does: a crash never leaves mail that was not sent.
    // Set before the recipient hears of it, whose chart may flush its log within this very send.
    recipient.log.writeAfter(sender.log.flush());
  }
  recipient.ref.send(event);
  return true;
}

function sentData(mail: Mail) {
  return {
    id: mail.id,
    to: mail.to,
    text: mail.text,
    ...(mail.kind === 'result' ? { kind: 'result' as const } : {}),
    ...(mail.reason !== undefined ? { reason: mail.reason } : {}),
    ...(mail.by !== undefined ? { by: mail.by } : {}),
  };
}
