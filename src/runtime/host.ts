import { type ActorLogic, type AnyActorLogic, type AnyActorRef, createActor, type Snapshot } from 'xstate';

export type HostEvent =
  | { type: 'host.spawn'; systemId: string; logic: AnyActorLogic; input: unknown }
  | { type: 'host.release'; ref: AnyActorRef };

/** The agents alive under the host, by actor id; not persisted, never shown to a model. */
export type HostSnapshot = Snapshot<undefined> & { agents: Map<string, AnyActorRef> };

// The events XState relays to a parent when a child ends; their type ends with the child's id.
const childEnded = /^xstate\.(done|error)\.actor\.(.*)$/;

/**
 * The root of an agent system: every agent is its child, so one XState actor system (and one inspector)
 * covers all of them. Agents are found through their system id, which keeps spawning and releasing
 * constant-time however many agents are alive.
 *
 * Plain actor logic, not a machine: a machine memoises its transition candidates per event type on its
 * state nodes for as long as the machine lives, and each agent that ends sends its parent an event whose
 * type names that agent (`xstate.done.actor.<id>`). Under a long-lived host machine every agent ever
 * created left an entry behind (~200 bytes); this logic keeps nothing per event type.
 */
export const hostLogic: ActorLogic<HostSnapshot, HostEvent> = {
  getInitialSnapshot: () => ({ status: 'active', output: undefined, error: undefined, agents: new Map() }),
  getPersistedSnapshot: () => ({ status: 'active', output: undefined, error: undefined }),
  transition(snapshot, event, scope) {
    const { agents } = snapshot;
    // XState also delivers its own events here (stop, children's ends), which HostEvent does not list.
    const type: string = event.type;
    if (event.type === 'host.spawn') {
      const agent = createActor(event.logic, {
        parent: scope.self,
        systemId: event.systemId,
        input: event.input,
      });
      agents.set(agent.id, agent);
      // Started after this transition, as a machine starts what it spawns.
      scope.defer(() => agent.start());
    } else if (event.type === 'host.release') {
      if (agents.delete(event.ref.id)) scope.stopChild(event.ref);
    } else if (type === 'xstate.stop') {
      for (const agent of agents.values()) scope.stopChild(agent);
      agents.clear();
    } else {
      const ended = childEnded.exec(type);
      if (ended) agents.delete(ended[2]!);
    }
    return snapshot;
  },
};
