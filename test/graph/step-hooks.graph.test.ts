// Graph paths of the step chart's hook waits, each driven through the real runtime with in-process hooks
// the driver answers: `hookingRequest` (the `request` hooks may change the request before it is made) and
// `hookingError` (the `requestError` hooks retry after a delay or give up). Every path ends with a
// dispose, so paths that stop in a hook wait check that the hook was aborted and the log ends cleanly.
import { describe, expect, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { type StepEvent, type StepInput, stepMachine } from '../../src/machines/step.ts';
import { emptyUsage } from '../../src/providers/types.ts';
import { settle } from '../support/controllable.ts';
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

type Snapshot = SnapshotFrom<typeof stepMachine>;
type Step = { event: StepEvent; state: Snapshot };

const maxAttempts = 2;
const retryMs = 7;

const input: StepInput = {
  agentKey: 'agent:a',
  turn: 1,
  model: 'gate-model',
  toolNames: [],
  systemHash: 'h',
  maxParallelTools: 10,
  jitterKey: 'a',
  retry: { baseDelayMs: 1, maxDelayMs: 1, maxAttempts },
  hooks: { request: true, requestError: true },
};

const rateLimited = { kind: 'rate_limit' as const, message: 'slow down', retryable: true };
const modified = { point: 'request' as const, hook: 'hold', outcome: 'modify' as const, system: 'Changed.' };

/** What can happen where the runtime rests: the two hook waits, the model request, the retry timer. */
function events(snapshot: Snapshot): StepEvent[] {
  // Tagged with the state it cancels, so a cancel in each wait is its own path (the chart ignores `from`).
  const cancel = { type: 'step.cancel', from: JSON.stringify(snapshot.value) } as StepEvent;
  if (snapshot.matches('idle')) return snapshot.context.step === 0 ? [{ type: 'step.begin', step: 1 }] : [];
  if (snapshot.matches('hookingRequest')) return [{ type: 'hook.request', decisions: [modified] }, cancel];
  if (snapshot.matches('requesting'))
    return [
      { type: 'model.done', text: 'Done.', toolCalls: [], usage: emptyUsage, stopReason: 'end_turn' },
      { type: 'model.error', error: rateLimited },
      cancel,
    ];
  if (snapshot.matches('hookingError'))
    return [
      ...(snapshot.context.attempt < maxAttempts
        ? [{ type: 'hook.requestError' as const, decisions: [], retryInMs: retryMs }]
        : []),
      { type: 'hook.requestError', decisions: [] },
      cancel,
    ];
  if (snapshot.matches('waitingToRetry')) return [{ type: 'retry.due' }, cancel];
  return [];
}

function serializeState(snapshot: Snapshot, event: StepEvent | undefined): string {
  const { step, attempt, canceled, error } = snapshot.context;
  const from = event?.type === 'step.cancel' ? (event as { from?: string }).from : null;
  return JSON.stringify([snapshot.value, step, attempt, canceled, error?.kind ?? null, from]);
}

const paths = getShortestPaths(stepMachine, {
  input,
  events,
  serializeState: (snapshot, event) => serializeState(snapshot as Snapshot, event as StepEvent | undefined),
  limit: 5_000,
});

const label = (event: StepEvent): string => {
  if (event.type === 'hook.requestError')
    return event.retryInMs === undefined ? 'error:giveUp' : 'error:retry';
  if (event.type === 'hook.request') return 'request:modify';
  if (event.type === 'step.cancel')
    return `cancel@${JSON.parse((event as unknown as { from: string }).from)}`;
  return event.type;
};

async function stimulate(harness: Harness, hooks: HoldingHooks, event: StepEvent) {
  switch (event.type) {
    case 'step.begin':
      await startRun(harness);
      break;
    case 'hook.request':
      hooks.answer('request:1', { system: 'Changed.' });
      break;
    case 'model.done':
      (await currentRequest(harness)).answer('Done.');
      requestEnded(harness);
      break;
    case 'model.error':
      (await currentRequest(harness)).fail('rate_limit');
      requestEnded(harness);
      break;
    case 'hook.requestError':
      hooks.answer(
        'requestError:1',
        event.retryInMs === undefined ? { decision: 'block', reason: 'give up' } : { delayMs: retryMs },
      );
      break;
    case 'retry.due':
      expect(harness.clock.runNext()).toBe(true);
      break;
    case 'step.cancel':
      harness.agent.cancel();
      break;
    default:
      throw new Error(`not in the catalogue: ${event.type}`);
  }
  await settle();
}

describe('step chart graph paths with request and requestError hooks', () => {
  it('has the expected number of shortest paths', () => {
    // One path to each distinct state: begin → hookingRequest (answer, cancel) → requesting (done,
    // error, cancel) → hookingError (retry while attempts remain, give up, cancel) → waitingToRetry
    // (due, cancel), with `maxAttempts` 2 bounding the rounds.
    expect(paths).toHaveLength(17);
  });

  for (const path of paths) {
    const steps = path.steps.slice(1) as Step[];
    const name = steps.map((step) => label(step.event)).join(' > ') || '(created)';
    it(`${name} → ${JSON.stringify(path.state.value)}`, async () => {
      const hooks = new HoldingHooks();
      const harness = await createHarness({
        limits: { maxAttempts },
        retry: { baseDelayMs: 1, maxDelayMs: 1 },
        hooks: hooks.hooks(['request', 'requestError']),
      });
      for (const step of steps) {
        await stimulate(harness, hooks, step.event);
        const state = step.state;
        if (state.context.canceled || state.matches('idle')) continue;
        // Where the runtime rests, the real step is where the path is, and the hook of that wait runs.
        expect(actorAt(harness, ['turn', 'step'])?.value).toEqual(state.value);
        if (state.matches('hookingRequest')) expect(hooks.waiting('request:1')).toBe(true);
        if (state.matches('hookingError')) expect(hooks.waiting('requestError:1')).toBe(true);
        if (state.matches('requesting'))
          expect((await currentRequest(harness)).request.system).toBe('Changed.');
      }
      const log = harness.agent.log();
      const decided = log.filter((event) => event.type === 'hook.decided').map((event) => event.data.point);
      const expectedPoints = steps.flatMap((step) =>
        step.event.type === 'hook.request'
          ? ['request']
          : step.event.type === 'hook.requestError'
            ? ['requestError']
            : [],
      );
      expect(decided).toEqual(expectedPoints);
      const expected = path.state as Snapshot;
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
