// What the agent handle reports about its agent: the state of its actors (the result of a turn, read from
// the log, is in turn-result.ts).
import type { AnyActorRef } from 'xstate';
import type { ContextUsage } from '../machines/compaction-types.ts';
import type { TurnContext } from '../machines/turn-types.ts';

/** The state of one actor and its children, as `agent.snapshot()` reports it. */
export type ActorSnapshot = { id: string; value: unknown; status: string; children: ActorSnapshot[] };

/** `ready.idle`, `disposing.flushing`, …: a state value as one dotted name. */
export function stateName(value: unknown): string {
  if (typeof value === 'string') return value;
  const [key, child] = Object.entries(value as Record<string, unknown>)[0] ?? ['?', undefined];
  return child === undefined ? key : `${key}.${stateName(child)}`;
}

/** An actor and its children, recursively. */
export function describeActor(ref: AnyActorRef, id: string): ActorSnapshot {
  const snapshot = ref.getSnapshot();
  const children = Object.entries((snapshot.children ?? {}) as Record<string, AnyActorRef>).map(
    ([childId, child]) => describeActor(child, childId),
  );
  return { id, value: snapshot.value ?? null, status: snapshot.status, children };
}

/** The context of every machine actor below `ref` (those whose snapshot has a value), by path of ids. */
export function machineContexts(ref: AnyActorRef): Map<string, unknown> {
  const contexts = new Map<string, unknown>();
  const walk = (actor: AnyActorRef, path: string) => {
    const snapshot = actor.getSnapshot();
    if (snapshot.value !== undefined) contexts.set(path, snapshot.context);
    for (const [id, child] of Object.entries((snapshot.children ?? {}) as Record<string, AnyActorRef>))
      walk(child, path ? `${path}/${id}` : id);
  };
  walk(ref, '');
  return contexts;
}

/**
 * `agent.snapshot()`: the agent's actor tree, and how full its context is — the input and cache tokens
 * of the last answered request of a step (as its provider reported them; 0 before the first) and the
 * model's context window.
 */
export type AgentSnapshot = ActorSnapshot & { contextUsage: ContextUsage };

/** The running turn knows the latest request; between turns the agent keeps what the last turn left. */
export function contextUsageOf(agent: AnyActorRef): ContextUsage {
  const snapshot = agent.getSnapshot();
  const turn = snapshot.children.turn as AnyActorRef | undefined;
  const running = turn?.getSnapshot().context as TurnContext | undefined;
  return {
    ...(running?.compacting.usage ?? (snapshot.context as { contextUsage: ContextUsage }).contextUsage),
  };
}

/** The tool batch of the running step, which takes a person's approvals and denials. */
export function toolBatchOf(agent: AnyActorRef): AnyActorRef | undefined {
  const turn = agent.getSnapshot().children.turn as AnyActorRef | undefined;
  const step = turn?.getSnapshot().children.step as AnyActorRef | undefined;
  return step?.getSnapshot().children.batch as AnyActorRef | undefined;
}
