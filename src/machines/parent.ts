import type { AnyActorRef } from 'xstate';

/**
 * The actor a long-lived child reports to (`sendTo(parentOf, …)`): the step reports `step.done` to its
 * turn, the tool batch `batch.done` to its step. Why this exists: those children live for a whole turn
 * and report once per step, so they cannot report through their own `done` output; `sendParent` would
 * do, but it throws when there is no parent, which is always the case in pure `transition()` calls and
 * graph traversal. There the report goes to the actor itself, which has no handler for it and ignores it.
 *
 * `_parent` is declared on XState's public `ActorRef` type and is the field `sendParent` itself reads.
 * It carries no dependencies, only the report: actors find their agent's ports by the agent key in their
 * input (see `agent-key.ts`), never through their parents.
 */
export const parentOf = ({ self }: { self: AnyActorRef }): AnyActorRef => self._parent ?? self;
