// A crash as a store sees it: every write a system made, in the order it made them, so a test can cut the
// history at any write (the process died there) and hand what was durable to a new system that resumes.
import { memoryStore } from '../../src/session/memory-store.ts';
import type { LoadedSession, LogEvent, SessionStore } from '../../src/session/types.ts';

/** One write that reached the store. */
export type StoreWrite =
  | { op: 'create'; sessionId: string }
  | { op: 'append'; sessionId: string; events: LogEvent[] }
  | { op: 'remove'; sessionId: string };

/** A store (a memory store unless given one) that records every write, in order. */
export class RecordingStore implements SessionStore {
  readonly kind = 'recording';
  readonly writes: StoreWrite[] = [];

  constructor(private readonly inner: SessionStore = memoryStore()) {}

  async create(sessionId: string): Promise<void> {
    this.writes.push({ op: 'create', sessionId });
    await this.inner.create(sessionId);
  }

  async append(sessionId: string, events: readonly LogEvent[]): Promise<void> {
    this.writes.push({ op: 'append', sessionId, events: structuredClone([...events]) });
    await this.inner.append(sessionId, events);
  }

  async remove(sessionId: string): Promise<void> {
    this.writes.push({ op: 'remove', sessionId });
    await this.inner.remove(sessionId);
  }

  load(sessionId: string): Promise<LoadedSession> {
    return this.inner.load(sessionId);
  }

  exists(sessionId: string): Promise<boolean> {
    return this.inner.exists(sessionId);
  }

  list(): Promise<string[]> {
    return this.inner.list();
  }
}

/**
 * The points a crash can fall on, in order: a session created, one event written. An append of several
 * events is several points (a crash can cut a write of many lines between two of them).
 */
export function crashPoints(writes: readonly StoreWrite[]): StoreWrite[] {
  return writes.flatMap((write): StoreWrite[] =>
    write.op === 'append' ? write.events.map((event) => ({ ...write, events: [event] })) : [write],
  );
}

/** A store holding what the first `count` crash points made durable: the state a crash there leaves. */
export async function crashedAt(points: readonly StoreWrite[], count: number): Promise<SessionStore> {
  const store = memoryStore();
  for (const write of points.slice(0, count)) {
    if (write.op === 'create') await store.create(write.sessionId);
    else if (write.op === 'append') await store.append(write.sessionId, write.events);
    else await store.remove(write.sessionId);
  }
  return store;
}
