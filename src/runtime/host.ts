import { type AnyActorLogic, type AnyActorRef, assign, setup, stopChild } from 'xstate';

export type HostEvent =
  | { type: 'host.spawn'; id: string; logic: AnyActorLogic; input: unknown }
  | { type: 'host.release'; id: string };

/**
 * The root of an agent system: every agent is its child, so one XState actor system (and one inspector)
 * covers all of them. Agents are registered under the system id `agent:<id>`.
 */
export const hostMachine = setup({
  types: {} as { events: HostEvent; context: { agents: Record<string, AnyActorRef> } },
}).createMachine({
  id: 'host',
  context: { agents: {} },
  on: {
    'host.spawn': {
      actions: assign({
        agents: ({ context, event, spawn }) => ({
          ...context.agents,
          [event.id]: spawn(event.logic, { systemId: `agent:${event.id}`, input: event.input }),
        }),
      }),
    },
    'host.release': {
      actions: [
        stopChild(({ context, event }) => context.agents[event.id] ?? event.id),
        assign({
          agents: ({ context, event }) =>
            Object.fromEntries(Object.entries(context.agents).filter(([id]) => id !== event.id)),
        }),
      ],
    },
  },
});
