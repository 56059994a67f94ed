// Graph paths of the supervision chart, each driven through the real runtime: a parent starts one child
// of a supervised agent type (one restart, 100 ms backoff) and waits for it; the child talks to a gate model
// the test answers. Its turn completes, fails `model_error`, is cancelled by its parent's cancel, or breaks
// off (its log cannot be written: the store refuses one write); the backoff passes on the simulated clock
// or the parent's cancel stops it. Wherever the runtime rests the child's supervision must be where the
// path is; at the end the child's result and status are what the path's final state says, every session
// is closed, every call has one result and all mail is paired.
import { describe, expect, it } from 'vitest';
import { supervisionMachine } from '../../src/machines/supervision.ts';
import { until } from '../support/crash-kit.ts';
import {
  labelSupervisionEvent,
  serializeSupervision,
  supervisionEvents,
  supervisionInput,
} from './catalogues/supervision.ts';
import { drive } from './support/background-tree.ts';
import { chartModel, pathName } from './support/model.ts';
import { type PathEnd, SupervisedTree } from './support/supervised-tree.ts';

const graph = chartModel(supervisionMachine, {
  input: supervisionInput,
  events: supervisionEvents,
  serializeState: serializeSupervision,
});

describe('supervision chart graph paths, driven through the runtime', () => {
  const paths = graph.simplePaths();
  it('has the expected number of simple paths', () => {
    expect(paths).toHaveLength(19);
    const ends = paths.map((path) => path.state.value as string);
    expect(new Set(ends)).toEqual(
      new Set(['running', 'backingOff', 'restarting', 'done', 'escalated', 'stopped']),
    );
  });

  for (const path of paths) {
    it(`${pathName(path, labelSupervisionEvent, { join: ' > ', empty: '(started)' })} → ${JSON.stringify(path.state.value)}`, async () => {
      const tree = await SupervisedTree.start();
      await drive(graph, path, {
        byItself: (event) => event.type === 'child.restarted',
        stimuli: {
          'child.ended': async (event) => {
            if (event.reason === 'canceled') return tree.parent.cancel();
            const request = await tree.childRequest();
            if (event.reason === 'completed') request.answer('Done.');
            else request.fail('bad_request');
          },
          'child.crashed': async () => {
            tree.store.refuseNextWriteOf(tree.childId);
            (await tree.childRequest()).answer('Done.');
          },
          'retry.due': () => void tree.clock.runNext(),
          'supervision.stop': () => tree.parent.cancel(),
        },
        restsAt: async (state) => {
          if (state.matches('running')) await tree.childRequest();
          else if (state.matches('backingOff'))
            await until(() => tree.clock.pendingTimers > 0, 'the backoff waits on the clock');
          else return;
          const expected = { state: state.value, restarts: state.context.restarts };
          await until(
            () => JSON.stringify(tree.child.supervision) === JSON.stringify(expected),
            `supervision in ${JSON.stringify(expected)}`,
          );
        },
      });
      const { restarts, failure } = path.state.context;
      const last = path.steps.at(-1)!.event;
      await tree.verify({
        final: path.state.value as PathEnd['final'],
        restarts,
        failure: failure?.reason,
        lastEnd: last.type === 'child.ended' ? last.reason : undefined,
      });
    });
  }
});
