// The real stimulus for each event of the tool-batch catalogue (catalogues/tool-batch.ts), and the checks
// every tool-batch suite makes on the real batch: the tool-batch graph suites' shared events table.
import { expect } from 'vitest';
import type { toolBatchMachine } from '../../../src/machines/tool-batch.ts';
import { settle } from '../../support/controllable.ts';
import { type BatchCall, type BatchSnapshot, batchFinished } from '../catalogues/tool-batch.ts';
import { actorAt, currentRequest, expectResultsInModelOrder, type Harness, requestEnded } from './driver.ts';
import type { HoldingHooks } from './holding-hooks.ts';
import type { HoldingTool } from './holding-tool.ts';
import type { EventTable } from './model.ts';
import { settled } from './stimuli.ts';

type Stimuli = EventTable<typeof toolBatchMachine>;

/**
 * Translates each abstract event into the real stimulus, then lets the runtime settle; `canceled` says
 * whether the path has canceled the batch yet.
 */
export function batchStimuli(
  harness: Harness,
  options: { calls: readonly BatchCall[]; tools: readonly HoldingTool[]; hooks?: HoldingHooks },
): { events: Stimuli; canceled: () => boolean } {
  const { calls, tools, hooks } = options;
  const toolOf = (callId: string) => {
    const name = calls.find((call) => call.id === callId)?.name;
    return tools.find((tool) => tool.name === name)!;
  };
  const hooked = () => {
    if (!hooks) throw new Error('this batch has no hooks');
    return hooks;
  };
  let canceled = false;
  const table: Stimuli = {
    // The model's answer brings both `batch.begin` and, in the same macrostep, `batch.checked`.
    'batch.begin': () => undefined,
    // The real flush of the question happens on its own; the stimulus that led to the wait let it finish.
    'log.flushed': () => undefined,
    'batch.checked': async () => {
      (await currentRequest(harness)).answer('', [...calls]);
      requestEnded(harness);
    },
    'tool.settled': (event) => toolOf(event.callId).finish(event.callId),
    'tool.approve': (event) => harness.agent.approve(event.callId),
    'tool.deny': (event) => harness.agent.deny(event.callId, event.reason),
    'batch.cancel': () => {
      canceled = true;
      harness.agent.cancel();
    },
    'hook.preTool': async (event) => {
      // The real hooks are asked one call at a time, in model order.
      for (const verdict of event.verdicts) {
        await settle();
        const deny = verdict.verdict === 'reject';
        hooked().answer(`preTool:${verdict.callId}`, deny ? { decision: 'deny', reason: 'no' } : undefined);
      }
    },
    'hook.postTool': (event) => hooked().answer(`postTool:${event.callId}`, { content: event.content }),
  };
  return { events: settled(table), canceled: () => canceled };
}

/**
 * The real batch against one state of the path: results in model order, exactly the committed ones
 * logged, and the batch in the path's state (a finished batch of a canceled turn is gone with the turn).
 */
export function expectBatchAt(harness: Harness, state: BatchSnapshot, canceled: boolean): void {
  const log = harness.agent.log();
  expectResultsInModelOrder(log);
  const committed = state.context.calls.filter((call) => call.committed);
  const results = log.filter((event) => event.type === 'tool.result');
  expect(results.map((event) => [event.data.callId, event.data.outcome])).toEqual(
    committed.map((call) => [call.callId, call.outcome]),
  );
  const batch = actorAt(harness, ['turn', 'step', 'batch']);
  if (batchFinished(state) && canceled) expect(batch).toBeUndefined();
  // The real flush is done by the time the driver looks: the real batch is already asking.
  else if (state.matches({ awaitingApproval: 'persisting' }))
    expect(batch?.value).toEqual({ awaitingApproval: 'asking' });
  else expect(batch?.value).toEqual(state.value);
}

/**
 * The driver gives `batch.begin` and `batch.checked` with one stimulus, the model's answer, on
 * `batch.checked`: until then the real batch still waits in idle with nothing logged.
 */
export function expectNotBegun(harness: Harness): void {
  expect(actorAt(harness, ['turn', 'step', 'batch'])?.value).toBe('idle');
  expect(harness.agent.log().filter((event) => event.type === 'tool.call')).toEqual([]);
}

/** A finished batch's turn ends: the model answers the next step, or the cancel ended it. */
export async function expectRunEnds(
  harness: Harness,
  final: BatchSnapshot,
  canceled: boolean,
): Promise<void> {
  if (!batchFinished(final)) return;
  if (!canceled) (await currentRequest(harness)).answer('Done.');
  expect((await harness.run!).reason).toBe(canceled ? 'canceled' : 'completed');
}
