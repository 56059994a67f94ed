// The recorded subagents of a tree replay (see `SubagentRecordings`): each child re-runs from its own log,
// with its own replay clock, recorded model answers and inbox ids.
import type { Provider } from '../providers/types.ts';
import type { RecordedSubagent, SubagentRecordings } from '../runtime/replay/subagent-replay.ts';
import { replay } from '../session/replay-provider.ts';
import { isEvent, type LogEvent, type SessionStore } from '../session/types.ts';
import { ReplayClock } from './replay-clock.ts';

/**
 * The subagents of a recording, by session id, and the clocks of those launched so far, so the replay's
 * driver can fire the timers of every session in the tree (`fireNext`) and see work in any of them
 * (`written`).
 */
export class RecordedSubagents implements SubagentRecordings {
  private readonly children = new Map<string, string>();
  private readonly positions = new Map<string, number>();
  private readonly launched: { clock: ReplayClock; written: () => number }[] = [];
  private readonly timerListeners = new Set<() => void>();

  constructor(
    root: { sessionId: string; events: readonly LogEvent[] },
    private readonly subagents: ReadonlyMap<string, readonly LogEvent[]>,
  ) {
    for (const [sessionId, events] of [[root.sessionId, root.events] as const, ...subagents]) {
      const spawning = new Set<string>();
      events.forEach((event, index) => {
        if (isEvent(event, 'agent.spawned')) {
          const { callId, childSessionId } = event.data;
          spawning.add(callId);
          this.children.set(`${sessionId} ${callId}`, childSessionId);
          this.positions.set(`${sessionId} ${callId} agent.spawned`, index);
        } else if (isEvent(event, 'tool.result') && spawning.has(event.data.callId)) {
          const at = resultGate(events, index, event.data.callId);
          this.positions.set(`${sessionId} ${event.data.callId} tool.result`, at);
        }
      });
    }
  }

  recordedAt(parentId: string, callId: string, type: 'agent.spawned' | 'tool.result'): number | undefined {
    return this.positions.get(`${parentId} ${callId} ${type}`);
  }

  childSessionId(parentId: string, callId: string): string | undefined {
    return this.children.get(`${parentId} ${callId}`);
  }

  session(sessionId: string, written: () => number): RecordedSubagent | undefined {
    const events = this.subagents.get(sessionId);
    if (events === undefined) return undefined;
    const clock = new ReplayClock(events, written);
    clock.onTimerSet(() => {
      for (const listener of [...this.timerListeners]) listener();
    });
    this.launched.push({ clock, written });
    return { events, clock, model: recordedModel(events, clock), nextId: inboxIds(events) };
  }

  /** Fires the first due timer of any subagent launched so far; false when none is due. */
  fireNext(): boolean {
    return this.launched.some(({ clock }) => clock.fireNext());
  }

  /** Calls `listener` whenever a launched subagent (or one launched later) sets a timer. */
  onTimerSet(listener: () => void): () => void {
    this.timerListeners.add(listener);
    return () => this.timerListeners.delete(listener);
  }

  /** How many events the launched subagents' logs hold together (it grows while any of them works). */
  written(): number {
    return this.launched.reduce((total, { written }) => total + written(), 0);
  }
}

/**
 * Where the log stood when a call's tool returned: before its `tool.result` and the hook decisions about
 * it that came between (the `postToolUse` hooks run once the tool returned).
 */
function resultGate(events: readonly LogEvent[], resultIndex: number, callId: string): number {
  let at = resultIndex;
  for (;;) {
    const before = events[at - 1];
    if (!before || !isEvent(before, 'hook.decided') || before.data.callId !== callId) return at;
    at--;
  }
}

/**
 * The replay provider of a recorded session, named as the recorded one (`session.start` has its name and
 * model), answering on `clock`.
 */
export function recordedModel(events: readonly LogEvent[], clock: ReplayClock): Provider {
  const start = events[0];
  const config = (start && isEvent(start, 'session.start') ? start.data.config : {}) as Record<
    string,
    unknown
  >;
  const inner = replay(events, { clock });
  return {
    name: typeof config.provider === 'string' ? config.provider : inner.name,
    model: inner.model,
    ...(inner.contextWindow !== undefined ? { contextWindow: inner.contextWindow } : {}),
    ...(inner.promptCache !== undefined ? { promptCache: inner.promptCache } : {}),
    ...(inner.prices !== undefined ? { prices: inner.prices } : {}),
    stream: (request, signal) => inner.stream(request, signal),
  };
}

/**
 * The ids of a session's `inbox.queued`, one per call, in log order: a subagent's prompt is queued by its
 * parent's `task` call, not by the replay, so the id comes back when the runtime asks. Past the recorded
 * ones, ids no recording has (the log diverges there anyway).
 */
function inboxIds(events: readonly LogEvent[]): (call: string) => string {
  const ids = events.flatMap((event) => (isEvent(event, 'inbox.queued') ? [event.data.id] : []));
  let next = 0;
  return () => ids[next++] ?? `unrecorded-${next}`;
}

/** The logs a replay wrote for the subagents `sessionIds` (those it never started are left out). */
export async function subagentLogs(
  store: SessionStore,
  sessionIds: Iterable<string>,
): Promise<Map<string, LogEvent[]>> {
  const logs = new Map<string, LogEvent[]>();
  for (const sessionId of sessionIds)
    if (await store.exists(sessionId)) logs.set(sessionId, (await store.load(sessionId)).events);
  return logs;
}
