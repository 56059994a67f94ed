/**
 * How an actor factory reaches the dependencies of the agent it works for: by the agent key in the
 * actor's input (`AgentKeyed`), once, when the actor starts. The runtime builds each chart's logic once
 * per system and registers every agent's dependencies under its key; a `provide()` per agent would
 * rebuild every state node and start each agent with cold transition caches.
 * Contract: returns what was registered under the key; throws for a key nobody registered (or one
 * already unregistered), which is a wiring error, never a condition an actor handles.
 */
export type DependenciesOf<Deps> = (agentKey: string) => Deps;
