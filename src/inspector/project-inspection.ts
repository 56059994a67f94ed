import type { InspectionEvent } from 'xstate';
import { compactValue } from './compact.ts';
import type { ActorPlace, InspectorMessage } from './protocol.ts';

/** What inspection refs are at run time (the type says `ActorRefLike`; they are full actors). */
type RuntimeRef = {
  id: string;
  sessionId: string;
  _parent?: RuntimeRef;
  src?: unknown;
  getSnapshot(): unknown;
};

// Model deltas arrive as `delta` messages from the agent's live events, batched; one inspection event per
// chunk would only repeat them.
const liveOnlyEvents = new Set(['model.delta', 'thinking.delta']);

const valueLimits = { maxString: 200, maxDepth: 8, maxEntries: 50 };

/**
 * Turns XState inspection events into the inspector's compact messages: ids, parent links, state values
 * and event types. Places are cached per actor object in a WeakMap, so stopped actors cost nothing.
 */
export class InspectionProjector {
  private readonly places = new WeakMap<object, ActorPlace | null>();
  private readonly lastState = new WeakMap<object, string>();
  private readonly announced = new WeakSet<object>();

  /**
   * The messages for one inspection event: an `actor` message the first time an actor is seen (also for
   * actors that existed before observation began), then the projected event, if it says anything new.
   */
  project(event: InspectionEvent): InspectorMessage[] {
    const ref = event.actorRef as unknown as RuntimeRef;
    const place = this.placeOf(ref);
    if (!place) return [];
    const messages: InspectorMessage[] = [];
    if (!this.announced.has(ref)) {
      this.announced.add(ref);
      messages.push({ kind: 'actor', ...place });
    }
    const message = this.projectEvent(event, ref, place);
    if (message) messages.push(message);
    return messages;
  }

  private projectEvent(
    event: InspectionEvent,
    ref: RuntimeRef,
    place: ActorPlace,
  ): InspectorMessage | undefined {
    switch (event.type) {
      case '@xstate.event':
        if (liveOnlyEvents.has(event.event.type)) return undefined;
        return {
          kind: 'event',
          ...place,
          type: event.event.type,
          source: (event.sourceRef as RuntimeRef | undefined)?.sessionId ?? null,
        };
      case '@xstate.action':
        return { kind: 'action', ...place, type: event.action.type };
      case '@xstate.snapshot':
      case '@xstate.microstep':
        return this.stateChange(ref, place, event.snapshot, event.event.type);
      default:
        return undefined;
    }
  }

  /** Where an actor sits, or null for the system's root (the host, which is not an agent). */
  placeOf(ref: RuntimeRef): ActorPlace | null {
    const known = this.places.get(ref);
    if (known !== undefined) return known;
    const place = this.locate(ref);
    // An agent reported before its context exists is placed again on its next event, once it has a name.
    if (place?.agentId !== null) this.places.set(ref, place);
    return place;
  }

  private locate(ref: RuntimeRef): ActorPlace | null {
    const parent = ref._parent;
    if (!parent) return null;
    const src = srcName(ref.src);
    const parentPlace = this.placeOf(parent);
    if (!parentPlace) {
      // A child of the host is an agent; its context names it (no snapshot yet while it is constructed).
      const snapshot = ref.getSnapshot() as { context?: { agentId?: unknown } } | undefined;
      const context = snapshot?.context;
      const agentId = typeof context?.agentId === 'string' ? context.agentId : null;
      return { actor: ref.sessionId, parent: null, agentId, path: [], src };
    }
    return {
      actor: ref.sessionId,
      parent: parent.sessionId,
      agentId: parentPlace.agentId,
      path: [...parentPlace.path, ref.id],
      src,
    };
  }

  private stateChange(
    ref: RuntimeRef,
    place: ActorPlace,
    snapshot: unknown,
    cause: string,
  ): InspectorMessage | undefined {
    const { value, status } = snapshot as { value?: unknown; status: string };
    const key = `${status} ${JSON.stringify(value ?? null)}`;
    if (this.lastState.get(ref) === key) return undefined;
    this.lastState.set(ref, key);
    return { kind: 'state', ...place, value: compactValue(value ?? null, valueLimits), status, event: cause };
  }
}

function srcName(src: unknown): string {
  if (typeof src === 'string') return src;
  const id = (src as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? id : 'anonymous';
}
