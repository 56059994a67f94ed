import type { AnyActorRef } from 'xstate';

/**
 * How an actor finds the dependencies of the agent it works for. The runtime builds each chart's logic
 * once per system, not once per agent (a `provide()` per agent would rebuild every state node and start
 * each agent with cold transition caches); an actor resolves its agent's dependencies when it starts.
 */
export type Resolve<Deps> = (self: AnyActorRef) => Deps;
