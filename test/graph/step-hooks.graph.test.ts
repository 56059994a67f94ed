// Graph paths of the step chart's hook waits, each driven through the real runtime with in-process hooks
// the driver answers: `hookingRequest` (the `request` hooks may change the request before it is made) and
// `hookingError` (the `requestError` hooks retry after a delay or give up). Every path ends with a
// dispose, so paths that stop in a hook wait check that the hook was aborted and the log ends cleanly.
import { describe, expect, it } from 'vitest';
import { stepMachine } from '../../src/machines/step.ts';
import {
  hookRetryMs,
  hookStepEvents,
  labelHookStepEvent,
  type StepSnapshot,
  serializeHookStep,
  stepInput,
} from './catalogues/step.ts';
import {
  actorAt,
  createHarness,
  currentRequest,
  disposeAndCheck,
  type Harness,
  requestEnded,
  startRun,
} from './support/driver.ts';
import { HoldingHooks } from './support/holding-hooks.ts';
import { chartModel, eventsOf, pathName } from './support/model.ts';
import { answerFinal, settled } from './support/stimuli.ts';

const maxAttempts = 2;

const graph = chartModel(stepMachine, {
  input: stepInput({
    toolNames: [],
    retry: { baseDelayMs: 1, maxDelayMs: 1, maxAttempts },
    hooks: { request: true, requestError: true },
  }),
  events: hookStepEvents(maxAttempts),
  serializeState: serializeHookStep,
  limit: 5_000,
});
const paths = graph.shortestPaths();

function stimuli(harness: Harness, hooks: HoldingHooks) {
  return settled<typeof stepMachine>({
    'step.begin': () => startRun(harness),
    'hook.request': () => hooks.answer('request:1', { system: 'Changed.' }),
    'model.done': () => answerFinal(harness),
    'model.error': async () => {
      (await currentRequest(harness)).fail('rate_limit');
      requestEnded(harness);
    },
    'hook.requestError': (event) =>
      hooks.answer(
        'requestError:1',
        event.retryInMs === undefined ? { decision: 'block', reason: 'give up' } : { delayMs: hookRetryMs },
      ),
    'retry.due': () => expect(harness.clock.runNext()).toBe(true),
    'step.cancel': () => harness.agent.cancel(),
  });
}

describe('step chart graph paths with request and requestError hooks', () => {
  it('has the expected number of shortest paths', () => {
    // One path to each distinct state: begin → hookingRequest (answer, cancel) → requesting (done,
    // error, cancel) → hookingError (retry while attempts remain, give up, cancel) → waitingToRetry
    // (due, cancel), with `maxAttempts` 2 bounding the rounds.
    expect(paths).toHaveLength(17);
  });

  for (const path of paths) {
    const name = pathName(path, labelHookStepEvent, { join: ' > ', empty: '(created)' });
    it(`${name} → ${JSON.stringify(path.state.value)}`, async () => {
      const hooks = new HoldingHooks();
      const harness = await createHarness({
        limits: { maxAttempts },
        retry: { baseDelayMs: 1, maxDelayMs: 1 },
        hooks: hooks.hooks(['request', 'requestError']),
      });
      // Where the runtime rests, the real step is where the path is, and the hook of that wait runs.
      const restsAt = (state: StepSnapshot, hook?: string) => {
        if (state.context.canceled) return;
        expect(actorAt(harness, ['turn', 'step'])?.value).toEqual(state.value);
        if (hook) expect(hooks.waiting(hook)).toBe(true);
      };
      await graph.run(path, {
        events: stimuli(harness, hooks),
        states: {
          idle: () => undefined,
          hookingRequest: (state) => restsAt(state, 'request:1'),
          hookingError: (state) => restsAt(state, 'requestError:1'),
          requesting: async (state) => {
            restsAt(state);
            if (!state.context.canceled)
              expect((await currentRequest(harness)).request.system).toBe('Changed.');
          },
          '*': (state) => restsAt(state),
        },
      });
      const decided = harness.agent
        .log()
        .filter((event) => event.type === 'hook.decided')
        .map((event) => event.data.point);
      const points = { 'hook.request': ['request'], 'hook.requestError': ['requestError'] };
      const expectedPoints = eventsOf(path).flatMap(
        (event) => (points as Record<string, string[]>)[event.type] ?? [],
      );
      expect(decided).toEqual(expectedPoints);
      const expected = path.state;
      if (expected.matches('idle') && harness.run) {
        const reason = expected.context.canceled
          ? 'canceled'
          : expected.context.error
            ? 'model_error'
            : 'completed';
        expect((await harness.run).reason).toBe(reason);
      }
      await disposeAndCheck(harness);
      expect(hooks.stillRunning()).toEqual([]);
    });
  }
});
