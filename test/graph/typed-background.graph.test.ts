// Graph paths of a typed run whose turn starts a background child (wait): the turn's `waitingForAgents` and
// `checkingOutput` together, each path driven through the real runtime. The turn checks its final answer
// only once it owes no child a wait: an answer given while it waits is superseded by the step the child's
// report starts, so it is never checked (and never costs a retry). Checked on every path of the chart, and
// in the runtime: no check is under way while the turn waits, and the log holds exactly the path's checks.
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { type TurnEvent, turnMachine } from '../../src/machines/turn.ts';
import { until } from '../support/crash-kit.ts';
import {
  labelBackgroundTurnEvent,
  serializeTypedBackgroundTurn,
  typedBackgroundTurnEvents,
  typedBackgroundTurnInput,
} from './catalogues/background.ts';
import { drive, Tree } from './support/background-tree.ts';
import { HoldingSchema } from './support/holding-schema.ts';
import { chartModel, eventsOf, pathName } from './support/model.ts';

const graph = chartModel(turnMachine, {
  input: typedBackgroundTurnInput,
  events: typedBackgroundTurnEvents,
  serializeState: serializeTypedBackgroundTurn,
});
const paths = graph.simplePaths();

describe('graph paths of a typed turn that waits for a background child', () => {
  it('has the expected number of simple paths, and checks no answer while it owes a wait', () => {
    // The free-text suite's 31 paths, whose 6 that complete now pass checkingOutput: 25 that never check, and
    // 30 that do, all after the child reported or was stopped. 16 check at step 2 (the child stopped: an
    // invalid answer has a step left to answer again), 7 each at step 3 (the limit ends an invalid one there).
    expect(paths).toHaveLength(55);
    const through = (state: 'waitingForAgents' | 'checkingOutput') =>
      paths.filter((path) => path.steps.some((step) => step.state.matches(state)));
    expect([through('waitingForAgents').length, through('checkingOutput').length]).toEqual([48, 30]);
    for (const path of paths)
      for (const { state } of path.steps)
        if (state.matches('checkingOutput')) expect(state.context.owed).toEqual([]);
  });

  const byItself = (event: TurnEvent) =>
    event.type === 'log.flushed' ||
    (event.type === 'step.done' &&
      ((event as { spawned?: boolean }).spawned || event.output.outcome === 'canceled'));

  for (const path of paths) {
    it(`${pathName(path, labelBackgroundTurnEvent, { join: ' > ', empty: '(created)' })} → ${JSON.stringify(path.state.value)}`, async () => {
      const tree = new Tree();
      const holding = new HoldingSchema();
      tree.parent = await tree.system.createAgent({ id: 'parent' });
      const childRequest = () => tree.open(tree.childModel, 'the child asks its model');
      let notes = 0;
      await drive(graph, path, {
        byItself,
        stimuli: {
          'turn.begin': () => tree.start({ output: holding.schema, maxOutputRetries: 1 }),
          'agents.owe': () => tree.spawn(true),
          'step.done': async () => (await tree.open(tree.parentModel, 'the parent asks')).answer('{"a":1}'),
          'inbox.nextStep': async (event) =>
            event.items[0]?.kind === 'result'
              ? (await childRequest()).answer('Child result.')
              : (await childRequest()).answer('', [
                  { id: `note${++notes}`, name: 'send_message', input: { to: 'parent', text: 'note' } },
                ]),
          'agents.heard': () => void tree.parent.children()[0]!.stop(),
          'output.checked': (event) => holding.answer(event.valid),
          'turn.cancel': () => tree.parent.cancel(),
        },
        restsAt: async (state) => {
          const { cancelCause, owed, output } = state.context;
          // The runtime rests while a step waits for the model, while the turn waits for its child, and
          // while the answer's check waits for the test.
          const held = state.matches('stepping') || state.matches('checkingOutput');
          if (!state.matches('waitingForAgents') && !(held && !cancelCause)) return;
          const real = () => tree.turnRef?.getSnapshot();
          await until(
            () => isDeepStrictEqual(real()?.value, state.value),
            `turn in ${JSON.stringify(state.value)}`,
          );
          expect([real()!.context.owed, real()!.context.output]).toEqual([owed, output]);
          // The runtime's check runs exactly in checkingOutput: never while the turn waits for its child.
          expect(holding.waiting).toBe(state.matches('checkingOutput'));
        },
      });
      const checks = eventsOf(path).flatMap((event) =>
        event.type === 'output.checked' ? [event.valid] : [],
      );
      const logged = tree.parent.log().flatMap((event) => (event.type === 'output.checked' ? [event] : []));
      expect(logged.map((event) => event.data.valid)).toEqual(checks);
      // Each check comes after the last of the child's reports the turn heard.
      const heard = tree.parent.log().findLastIndex((event) => event.data.kind === 'result');
      for (const check of logged) expect(tree.parent.log().indexOf(check)).toBeGreaterThan(heard);
      if (path.state.matches('done')) {
        const result = await tree.run!;
        expect([result.reason, result.output]).toEqual([
          path.state.context.reason,
          path.state.context.reason === 'completed' ? { a: 1 } : undefined,
        ]);
      }
      await tree.verify();
    });
  }
});
