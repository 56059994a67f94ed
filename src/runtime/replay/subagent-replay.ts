// The port through which a replay gives every subagent of a recorded tree its own recording: the child's
// model answers, clock, ids, tool results, hook decisions and environment come from the child's log, not
// from its parent's (call ids, turns and times of two sessions say nothing about each other). The runtime
// sees this port only; the replay implements it (replay/subagent-recordings.ts).
import type { Clock } from '../../core/clock.ts';
import type { Provider } from '../../providers/types.ts';
import type { LogEvent } from '../../session/types.ts';

/** What one replayed subagent runs with instead of the system's model, clock and ids. */
export type RecordedSubagent = {
  /** The subagent's recorded log. */
  events: readonly LogEvent[];
  /** The recorded time of the event the subagent's log will write next. */
  clock: Clock;
  /** Answers with the subagent's recorded model responses, named as the recorded provider. */
  model: Provider;
  /** The ids the subagent's inbox gave its messages, in recorded order. */
  nextId: (call: string) => string;
};

/**
 * The recorded subagents of a replay, by session id.
 * Contract: `childSessionId` names the child a recorded call started (its parent's `agent.spawned`), or
 * undefined when the recording has none for that call (the system then makes up an id, and the parent's log
 * diverges there). `session` is called once per child launch, with how many events its log holds now; it
 * returns undefined for a session the recording does not have. `recordedAt` says how many events the
 * parent's log held when the recording wrote the call's `agent.spawned`, or was about to write its
 * `tool.result` (undefined: the recording has none): calls side by side then log in the recorded order,
 * whichever child the replay starts or finishes first. None of them throws.
 */
export type SubagentRecordings = {
  childSessionId(parentId: string, callId: string): string | undefined;
  recordedAt(parentId: string, callId: string, type: 'agent.spawned' | 'tool.result'): number | undefined;
  session(sessionId: string, written: () => number): RecordedSubagent | undefined;
  /**
   * Background agents' mail: the id of the next `message.sent` session `sessionId` recorded (in order;
   * undefined past the recorded ones), and how many events a recipient's log held when its recording queued
   * mail `mailId` (undefined: the recording never got it). Optional: recordings of `task` trees need none.
   */
  messageId?(sessionId: string): string | undefined;
  mailAt?(sessionId: string, mailId: string): number | undefined;
};
