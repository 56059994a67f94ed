import { messageOf } from '../errors/describe-value.ts';
import { parseLoadedEvents } from '../session/schema.ts';
import type { SessionStore } from '../session/types.ts';
import type { AgentsPayload, InspectorMessage, InspectorSource } from './protocol.ts';
import { type RecordedSession, RecordedSource } from './recorded-source.ts';
import type { TravelAnswer } from './time-travel.ts';

export type StoreSourceOptions = {
  title?: string;
  /** How often the store is read again for new sessions and events (default 1 s). */
  intervalMs?: number;
  /** The most sessions shown, newest ids last (default 200). */
  maxSessions?: number;
};

/**
 * The inspector's view of every session in a store (a PostgreSQL store shared by many workers): each one
 * as a recording, read-only — the agents live in other processes, so nothing here can answer or cancel
 * them. The store is read again at an interval, and a changed set of sessions goes to the page as a fresh
 * snapshot. An empty or unreadable session is left out, and `warnings` says why.
 */
export class StoreSource implements InspectorSource {
  readonly kind = 'recorded';
  private current: RecordedSource;
  private readonly listeners = new Set<(message: InspectorMessage) => void>();
  private readonly lengths = new Map<string, number>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private refreshing: Promise<void> | undefined;
  readonly warnings: string[] = [];

  private constructor(
    private readonly store: SessionStore,
    private readonly options: StoreSourceOptions,
  ) {
    this.current = new RecordedSource([], this.title());
  }

  /** Reads the store once, then again every `intervalMs` while the source is open. */
  static async open(store: SessionStore, options: StoreSourceOptions = {}): Promise<StoreSource> {
    const source = new StoreSource(store, options);
    await source.refresh();
    source.timer = setInterval(() => void source.refresh(), options.intervalMs ?? 1000);
    source.timer.unref?.();
    return source;
  }

  agents(): AgentsPayload {
    return this.current.agents();
  }

  log(agentId: string) {
    return this.current.log(agentId);
  }

  travel(agentId: string, seq: number): Promise<TravelAnswer | undefined> {
    return this.current.travel(agentId, seq);
  }

  subscribe(listener: (message: InspectorMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.refreshing;
  }

  /** Reads the store again; when any session appeared or grew, every page gets a fresh snapshot. */
  refresh(): Promise<void> {
    this.refreshing ??= this.read().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async read(): Promise<void> {
    let ids: string[];
    try {
      ids = (await this.store.list()).slice(-(this.options.maxSessions ?? 200));
    } catch (error) {
      // The store is unreachable for now: keep showing what was read, try again at the next interval.
      this.warnings.push(`reading the store failed: ${messageOf(error)}`);
      return;
    }
    const sessions: RecordedSession[] = [];
    const warnings: string[] = [];
    for (const sessionId of ids) {
      try {
        const events = parseLoadedEvents(await this.store.load(sessionId));
        if (events.length > 0) sessions.push({ sessionId, events });
      } catch (error) {
        warnings.push(`session ${sessionId}: ${messageOf(error)}`);
      }
    }
    const changed =
      sessions.length !== this.lengths.size ||
      sessions.some((session) => this.lengths.get(session.sessionId) !== session.events.length);
    this.warnings.splice(0, this.warnings.length, ...warnings);
    if (!changed) return;
    this.lengths.clear();
    for (const session of sessions) this.lengths.set(session.sessionId, session.events.length);
    this.current = new RecordedSource(sessions, this.title());
    const snapshot: InspectorMessage = { kind: 'snapshot', ...this.current.agents() };
    for (const listener of this.listeners) listener(snapshot);
  }

  private title(): string {
    return this.options.title ?? `agentchart — sessions in the ${this.store.kind} store (read-only)`;
  }
}
