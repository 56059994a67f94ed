// Graph paths of the background-agent states, each driven through the real runtime: the turn's
// `waitingForAgents` (a child started with `wait`: its result, a message, a stop, a cancel) and the agent's
// release of its children (a cancel releases them at once; dispose waits in `disposing.releasingChildren`).
// The parent and the child talk to gate models the test answers; the runtime passes the rest by itself.
// At every state the runtime rests in, the real chart must be where the path is; at the end every session
// is closed (each child's before its parent's), every call has one result and all mail is paired.
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/machines/agent.ts';
import { agentMachine } from '../../src/machines/agent.ts';
import { type TurnEvent, turnMachine } from '../../src/machines/turn.ts';
import { until } from '../support/crash-kit.ts';
import {
  backgroundAgentEvents,
  backgroundAgentInput,
  backgroundTurnEvents,
  backgroundTurnInput,
  labelBackgroundAgentEvent,
  labelBackgroundTurnEvent,
  serializeBackgroundAgent,
  serializeBackgroundTurn,
} from './catalogues/background.ts';
import { drive, Tree } from './support/background-tree.ts';
import { type ChartPath, chartModel, pathName } from './support/model.ts';

const turnGraph = chartModel(turnMachine, {
  input: backgroundTurnInput,
  events: backgroundTurnEvents,
  serializeState: serializeBackgroundTurn,
});

describe('turn chart graph paths with a background child (waitingForAgents)', () => {
  const paths = turnGraph.simplePaths();
  it('has the expected number of simple paths', () => {
    expect(paths).toHaveLength(31);
    expect(
      paths.filter((path) => path.steps.some((step) => step.state.matches('waitingForAgents'))),
    ).toHaveLength(24);
  });

  const byItself = (event: TurnEvent) =>
    event.type === 'log.flushed' ||
    (event.type === 'step.done' &&
      ((event as { spawned?: boolean }).spawned || event.output.outcome === 'canceled'));

  for (const path of paths) {
    it(`${pathName(path, labelBackgroundTurnEvent, { join: ' > ', empty: '(created)' })} → ${JSON.stringify(path.state.value)}`, async () => {
      const tree = new Tree();
      tree.parent = await tree.system.createAgent({ id: 'parent' });
      const childRequest = () => tree.open(tree.childModel, 'the child asks its model');
      let notes = 0;
      await drive(turnGraph, path, {
        byItself,
        stimuli: {
          'turn.begin': () => tree.start(),
          'agents.owe': () => tree.spawn(true),
          'step.done': async () => (await tree.open(tree.parentModel, 'the parent asks')).answer('Done.'),
          'inbox.nextStep': async (event) =>
            event.items[0]?.kind === 'result'
              ? (await childRequest()).answer('Child result.')
              : (await childRequest()).answer('', [
                  { id: `note${++notes}`, name: 'send_message', input: { to: 'parent', text: 'note' } },
                ]),
          'agents.heard': () => void tree.parent.children()[0]!.stop(),
          'turn.cancel': () => tree.parent.cancel(),
        },
        restsAt: async (state) => {
          // The runtime rests while a step waits for the model and while the turn waits for its child.
          const rests =
            (state.matches('stepping') && !state.context.cancelCause) || state.matches('waitingForAgents');
          if (!rests) return;
          const real = () => tree.turnRef?.getSnapshot();
          await until(
            () => isDeepStrictEqual(real()?.value, state.value),
            `turn in ${JSON.stringify(state.value)}`,
          );
          expect(real()!.context.owed).toEqual(state.context.owed);
        },
      });
      if (path.state.matches('done')) expect((await tree.run)?.reason).toBe(path.state.context.reason);
      await tree.verify();
    });
  }
});

const agentGraph = chartModel(agentMachine, {
  input: backgroundAgentInput,
  events: backgroundAgentEvents,
  serializeState: serializeBackgroundAgent,
});

describe('agent chart graph paths with a background child (releasingChildren)', () => {
  const paths = agentGraph.simplePaths();
  it('has the expected number of simple paths', () => {
    // The agent starts no MCP servers: no `creating.servers`, no `disposing.closing`.
    expect(paths).toHaveLength(31);
    const releasing = (path: (typeof paths)[number]) =>
      path.steps.some((step) => step.state.matches({ disposing: 'releasingChildren' }));
    expect(paths.filter(releasing)).toHaveLength(10);
  });

  const outside = new Set(['agent.followup', 'agent.childStarted', 'agent.cancel', 'agent.dispose']);
  for (const path of paths) {
    // A turn's end is the model's final answer, unless the path cancelled or disposed the turn first.
    const byItself = (event: AgentEvent, index: number) =>
      !outside.has(event.type) && !(event.type === 'xstate.done.actor.turn' && !cancelledBefore(path, index));
    it(`${pathName(path, labelBackgroundAgentEvent, { join: ' > ', empty: '(created)' })} → ${JSON.stringify(path.state.value)}`, async () => {
      const tree = new Tree();
      tree.parent = await tree.system.createAgent({ id: 'parent' });
      await drive(agentGraph, path, {
        byItself,
        stimuli: {
          'agent.followup': () => tree.start(),
          'agent.childStarted': () => tree.spawn(false),
          'xstate.done.actor.turn': async () =>
            (await tree.open(tree.parentModel, 'the parent asks')).answer('Done.'),
          'agent.cancel': () => tree.parent.cancel(),
          'agent.dispose': () => {
            tree.disposing = tree.parent.dispose();
          },
        },
        restsAt: async (state) => {
          // It rests when ready with nothing passing by itself: no release under way, no cancelled turn ending.
          const { children, turnAlive, held } = state.context;
          if (!state.matches('ready') || children.releasing || (turnAlive && held)) return;
          const real = () => tree.agentRef.getSnapshot();
          await until(
            () => isDeepStrictEqual(real().value, state.value),
            `agent in ${JSON.stringify(state.value)}`,
          );
          expect(real().context.children).toEqual(state.context.children);
          const running = tree.parent.children().filter((one) => one.status === 'running');
          expect(running.map((one) => one.id)).toEqual(state.context.children.live);
        },
      });
      await tree.verify();
    });
  }
});

/** Whether the path cancelled or disposed before its event `index` (then a turn's end is the runtime's own). */
function cancelledBefore(path: ChartPath<typeof agentMachine>, index: number): boolean {
  return path.steps
    .slice(1, index + 1)
    .some((step) => step.event.type === 'agent.cancel' || step.event.type === 'agent.dispose');
}
