import { type AnyActorLogic, type AnyActorRef, assertEvent, enqueueActions, setup, stopChild } from 'xstate';

export type HostEvent =
  | { type: 'host.spawn'; systemId: string; logic: AnyActorLogic; input: unknown }
  | { type: 'host.release'; ref: AnyActorRef };

/**
 * The root of an agent system: every agent is its child, so one XState actor system (and one inspector)
 * covers all of them. It keeps no context: agents are found through their system id, which keeps
 * spawning and releasing constant-time however many agents are alive.
 */
export const hostMachine = setup({ types: {} as { events: HostEvent } }).createMachine({
  id: 'host',
  on: {
    'host.spawn': {
      actions: enqueueActions(({ event, enqueue }) => {
        assertEvent(event, 'host.spawn');
        enqueue.spawnChild(event.logic, { systemId: event.systemId, input: event.input });
      }),
    },
    'host.release': { actions: stopChild(({ event }) => event.ref) },
  },
});
