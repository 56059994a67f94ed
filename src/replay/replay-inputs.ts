// What a person or host did to a recorded session, read back from its log, and the time it did it at: the
// inputs a replay must give the runtime again, each at the log position where the recording shows it.
import type { ApprovalAnswer } from '../actors/approval.ts';
import { isPermissionMode } from '../permissions/modes.ts';
import { isEvent, type LogEvent, type OutputSpec } from '../session/types.ts';

/** One thing done to the agent from outside, due when the replayed log holds exactly `atLength` events. */
export type ReplayInput =
  | {
      kind: 'message';
      atLength: number;
      channel: 'followup' | 'steer' | 'inject';
      id: string;
      message: string;
      /** A typed run's follow-up: the output it asked for, as the recording logged it. */
      output?: OutputSpec;
    }
  | { kind: 'compact'; atLength: number }
  | {
      kind: 'decision';
      atLength: number;
      callId: string;
      outcome: 'allow' | 'allow_session' | 'deny';
      reason?: string;
      rule?: string;
      mode?: string;
    }
  | { kind: 'mode'; atLength: number; mode: string; by: 'host' | 'user' }
  /** A host's `child.send(text)` to background child `to`; `id` is the message id the recording gave it. */
  | { kind: 'hostMail'; atLength: number; to: string; id: string; text: string }
  | { kind: 'cancel'; atLength: number; clearInbox: boolean };

/**
 * The inputs of a recording, in log order:
 * - every `inbox.queued` is a `followup`, `steer` or `inject` call made just before it was written, except
 *   mail from another agent of the tree (it names its sender), which that agent's replay sends again;
 * - a `compaction` a host asked for (`trigger: 'manual'`) in a turn that only compacts is an
 *   `agent.compact()` made just before that turn's `turn.start`; one asked for while a turn ran is taken
 *   as made just before the compaction itself (the log does not say when the call came);
 * - an `approval.decided` by `user` is an `agent.approve/deny` made just before it was written;
 * - a `mode.changed` by `host` or `user` is an `agent.setPermissionMode()` made just before it was
 *   written (with the same `by`).
 * - a `cancel.requested` by `user` is an `agent.cancel()` made just before it was written (the chat's Esc,
 *   a host's cancel); one by a parent comes from the parent's own replay, not from outside.
 * - a `message.sent` by `host` is a `child.send()` to that background child made just before it was written
 *   (the parent's model's own messages come from its replay).
 */
export function replayInputs(events: readonly LogEvent[]): ReplayInput[] {
  const inputs: ReplayInput[] = [];
  events.forEach((event, index) => {
    // Mail from another agent of the tree is not outside input: the replayed sender sends it again.
    if (isEvent(event, 'inbox.queued') && event.data.from === undefined) {
      const { channel, id, message, output } = event.data;
      inputs.push({ kind: 'message', atLength: index, channel, id, message, ...(output ? { output } : {}) });
    } else if (isEvent(event, 'compaction') && event.data.trigger === 'manual') {
      // The `preCompact` hooks' decisions come between the turn's start and its compaction.
      let start = index - 1;
      while (start > 0 && events[start]?.type === 'hook.decided') start--;
      const before = events[start];
      const onlyCompacts = before !== undefined && isEvent(before, 'turn.start');
      inputs.push({ kind: 'compact', atLength: onlyCompacts ? start : start + 1 });
    } else if (isEvent(event, 'approval.decided') && event.data.by === 'user') {
      const { callId, outcome, reason, rule, mode } = event.data;
      const extra = { ...(reason ? { reason } : {}), ...(rule ? { rule } : {}), ...(mode ? { mode } : {}) };
      inputs.push({ kind: 'decision', atLength: index, callId, outcome, ...extra });
    } else if (isEvent(event, 'cancel.requested') && event.data.by === 'user') {
      inputs.push({ kind: 'cancel', atLength: index, clearInbox: event.data.clearInbox === true });
    } else if (isEvent(event, 'message.sent') && event.data.by === 'host') {
      const { to, id, text } = event.data;
      inputs.push({ kind: 'hostMail', atLength: index, to, id, text });
    } else if (isEvent(event, 'mode.changed') && event.data.by !== 'plan') {
      inputs.push({ kind: 'mode', atLength: index, mode: event.data.to, by: event.data.by });
    }
  });
  return inputs;
}

/**
 * The answers a host callback gave in the recording (`by: 'host'`), as the callback gave them: a denial
 * with its logged reason and a session allowance with its rule, so the replay logs the same decision.
 */
export function hostDecisions(events: readonly LogEvent[]): Map<string, ApprovalAnswer> {
  const decisions = new Map<string, ApprovalAnswer>();
  for (const event of events) {
    if (!isEvent(event, 'approval.decided') || event.data.by !== 'host') continue;
    const { callId, outcome, reason, rule, mode } = event.data;
    if (outcome === 'deny' && reason) decisions.set(callId, { outcome, reason });
    else if (outcome === 'allow' && isPermissionMode(mode)) decisions.set(callId, { outcome, mode });
    else if (outcome === 'allow_session' && rule) decisions.set(callId, { outcome, rule });
    else decisions.set(callId, outcome);
  }
  return decisions;
}
