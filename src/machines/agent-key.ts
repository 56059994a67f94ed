/**
 * What every chart input and every spawned actor's input carries: the key under which the runtime
 * registered the dependencies (session log, provider, tools, host callbacks) of the agent the actor works
 * for. The charts only pass it down, agent → turn → step → batch → each actor they spawn; to them it is a
 * plain string, so they stay pure, and an actor finds its agent's dependencies by this key, once, when it
 * starts (never by walking up its parents).
 */
export type AgentKeyed = { agentKey: string };
