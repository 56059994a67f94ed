import type { AnyActorRef } from 'xstate';

/**
 * The actor a long-lived child reports to (`sendTo(parentOf, …)`). Unlike `sendParent`, this does not
 * throw when there is no parent, which is the case in pure `transition()` calls and graph traversal;
 * there the report goes to the actor itself, which has no handler for it and ignores it.
 */
export const parentOf = ({ self }: { self: AnyActorRef }): AnyActorRef => self._parent ?? self;
