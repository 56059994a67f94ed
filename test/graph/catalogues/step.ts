// The step chart's event catalogue, shared by every step graph suite: the sample payloads, the input each
// suite's step starts from, and what can happen in each state for each runtime the suites build (plain,
// with compaction; with the `request`/`requestError` hooks; a child agent's step under a parent's `task`
// call). Each runtime rests in other states, so each has its own list; the samples are the same everywhere.
import type { SnapshotFrom } from 'xstate';
import { type StepEvent, type StepInput, type stepMachine, stepOutput } from '../../../src/machines/step.ts';
import { emptyUsage } from '../../../src/providers/types.ts';

export type StepSnapshot = SnapshotFrom<typeof stepMachine>;

/** The input every suite's step starts from: turn 1 of agent `a`, with what sets a suite apart. */
export const stepInput = (overrides: Partial<StepInput>): StepInput => ({
  agentKey: 'agent:a',
  turn: 1,
  model: 'gate-model',
  toolNames: ['probe'],
  systemHash: 'h',
  maxParallelTools: 10,
  jitterKey: 'a',
  ...overrides,
});

/** The one tool call a `tools` answer makes. */
export const probeCall = { id: 'c1', name: 'probe', input: { value: '1' } };
/** The text the driver streams for `model.streaming` (the attempt's first delta). */
export const streamedSample = 'Hi';
const summary = { replaces: [1, 1] as [number, number], summary: 'S', tokensBefore: 1, usage: emptyUsage };

/** Model errors: retryable, fatal, one that asks for a compaction, and a rate limit the hooks see. */
export const modelErrors = {
  overloaded: { kind: 'overloaded' as const, message: 'test overloaded', retryable: true },
  auth: { kind: 'auth' as const, message: 'test auth', retryable: false },
  overflow: { kind: 'context_overflow' as const, message: 'test context_overflow', retryable: false },
  rateLimited: { kind: 'rate_limit' as const, message: 'slow down', retryable: true },
};

/** The step has ended and reported (its actor waits in idle for the next one). */
export const finished = (snapshot: StepSnapshot) => snapshot.matches('idle') && snapshot.context.step > 0;

/** One step per path: begun once, over when the actor is back in idle. */
const begins = (snapshot: StepSnapshot, begin: StepEvent[]): StepEvent[] =>
  snapshot.context.step === 0 ? begin : [];

/**
 * Plain steps with compaction: streaming, answers with and without a tool call, retryable, fatal and
 * overflowing model errors, the retry timer, a cancel in every state, and a step that only compacts.
 */
export function stepEvents(snapshot: StepSnapshot): StepEvent[] {
  const { context } = snapshot;
  const { overloaded, auth, overflow } = modelErrors;
  if (snapshot.matches('idle'))
    return begins(snapshot, [
      { type: 'step.begin', step: 1 },
      { type: 'step.begin', step: 1, compaction: { trigger: 'manual' } },
    ]);
  if (snapshot.matches('requesting') && context.compacting) {
    // The planner decides before the first request; once one was made, a retry plans the same range.
    const firstTry = context.kind === 'compaction' ? context.attempt === 1 : context.retryInMs === undefined;
    return [
      { type: 'compaction.done', ...summary },
      ...(firstTry ? [{ type: 'compaction.skipped' } as const] : []),
      { type: 'model.error', error: overloaded },
      { type: 'model.error', error: overflow },
      { type: 'step.cancel' },
    ];
  }
  if (snapshot.matches('requesting')) {
    const done = {
      type: 'model.done' as const,
      text: context.streamed ? streamedSample : '',
      usage: emptyUsage,
    };
    return [
      ...(context.streamed ? [] : [{ type: 'model.streaming' } as const]),
      { ...done, toolCalls: [], stopReason: 'end_turn' },
      { ...done, toolCalls: [probeCall], stopReason: 'tool_use' },
      { type: 'model.error', error: overloaded },
      { type: 'model.error', error: auth },
      { type: 'model.error', error: overflow },
      { type: 'step.cancel' },
    ];
  }
  // The model call hands over what it streamed as soon as it is asked.
  if (snapshot.matches('interrupting')) return [{ type: 'model.interrupted', text: streamedSample }];
  if (snapshot.matches('waitingToRetry')) return [{ type: 'retry.due' }, { type: 'step.cancel' }];
  if (snapshot.matches('executingTools')) {
    const batchDone: StepEvent = {
      type: 'batch.done',
      output: { results: 1, unknownTools: 0, calls: 1 },
    };
    return context.canceled ? [batchDone] : [batchDone, { type: 'step.cancel' }];
  }
  return [];
}

/** Bounded key: value, attempt, whether text streamed, cancel, tool calls, error kind, and outcome. */
export function serializeStep(snapshot: StepSnapshot): string {
  const { context } = snapshot;
  return JSON.stringify([
    snapshot.value,
    context.attempt,
    context.streamed,
    context.canceled,
    context.toolCalls.length,
    // Overflows that cannot be recovered from differ only by the cause in their message.
    context.error?.message ?? '',
    // Tells a cancel while waiting to retry from one before any error.
    context.retryInMs !== undefined,
    finished(snapshot) ? stepOutput(context).outcome : '',
    context.kind,
    context.compacting?.trigger ?? '',
    context.overflow !== undefined,
  ]);
}

export function describeStepEvent(event: StepEvent): string {
  if (event.type === 'model.error') return `model.error(${event.error.kind})`;
  if (event.type === 'model.done') return event.toolCalls.length > 0 ? 'model.done(tools)' : 'model.done';
  if (event.type === 'step.begin') return event.compaction ? 'step.begin(compaction)' : 'step.begin';
  return event.type;
}

/** The delay the `requestError` hooks ask for before a retry. */
export const hookRetryMs = 7;
const modified = { point: 'request' as const, hook: 'hold', outcome: 'modify' as const, system: 'Changed.' };

/**
 * With `request` and `requestError` hooks: the two hook waits, the model request and the retry timer. A
 * cancel is tagged with the state it cancels, so a cancel in each wait is its own path (the chart
 * ignores `from`); the hooks may retry while fewer than `maxAttempts` attempts were made.
 */
export function hookStepEvents(maxAttempts: number) {
  return (snapshot: StepSnapshot): StepEvent[] => {
    const cancel = { type: 'step.cancel', from: JSON.stringify(snapshot.value) } as StepEvent;
    if (snapshot.matches('idle')) return begins(snapshot, [{ type: 'step.begin', step: 1 }]);
    if (snapshot.matches('hookingRequest')) return [{ type: 'hook.request', decisions: [modified] }, cancel];
    if (snapshot.matches('requesting'))
      return [
        { type: 'model.done', text: 'Done.', toolCalls: [], usage: emptyUsage, stopReason: 'end_turn' },
        { type: 'model.error', error: modelErrors.rateLimited },
        cancel,
      ];
    if (snapshot.matches('hookingError'))
      return [
        ...(snapshot.context.attempt < maxAttempts
          ? [{ type: 'hook.requestError' as const, decisions: [], retryInMs: hookRetryMs }]
          : []),
        { type: 'hook.requestError', decisions: [] },
        cancel,
      ];
    if (snapshot.matches('waitingToRetry')) return [{ type: 'retry.due' }, cancel];
    return [];
  };
}

/** The state a tagged cancel was sent in, or null. */
export const cancelledFrom = (event: StepEvent | undefined): string | null =>
  event?.type === 'step.cancel' ? ((event as { from?: string }).from ?? null) : null;

/** Bounded key of the hook suite: value, step, attempt, cancel, error kind, and where a cancel came. */
export function serializeHookStep(snapshot: StepSnapshot, event: StepEvent | undefined): string {
  const { step, attempt, canceled, error } = snapshot.context;
  return JSON.stringify([snapshot.value, step, attempt, canceled, error?.kind ?? null, cancelledFrom(event)]);
}

export function labelHookStepEvent(event: StepEvent): string {
  if (event.type === 'hook.requestError')
    return event.retryInMs === undefined ? 'error:giveUp' : 'error:retry';
  if (event.type === 'hook.request') return 'request:modify';
  const from = cancelledFrom(event);
  if (from) return `cancel@${JSON.parse(from)}`;
  return event.type;
}

/** The child's one tool call, to a tool that waits until the test finishes it. */
export const waitCall = { id: 'w1', name: 'wait', input: { value: 'w' } };
/** A retryable error with a long retry-after, so the child rests in `waitingToRetry`. */
export const busy = { kind: 'overloaded', message: 'busy', retryable: true, retryAfterMs: 60_000 } as const;

/** What a child's model can do in each state; the stop always comes from the parent. */
export function childStepEvents(snapshot: StepSnapshot): StepEvent[] {
  if (snapshot.matches('idle')) return begins(snapshot, [{ type: 'step.begin', step: 1 }]);
  if (snapshot.matches('requesting')) {
    return [
      ...(snapshot.context.streamed ? [] : [{ type: 'model.streaming' as const }]),
      {
        type: 'model.done',
        text: snapshot.context.streamed ? 'partial ' : '',
        toolCalls: [waitCall],
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
        stopReason: 'tool_use',
      },
      { type: 'model.error', error: busy },
    ];
  }
  if (snapshot.matches('waitingToRetry')) return [{ type: 'retry.due' }];
  return [];
}

/** Bounded key of a child's step: value, attempt and whether text streamed. */
export const serializeChildStep = (snapshot: StepSnapshot) =>
  JSON.stringify([snapshot.value, snapshot.context.attempt, snapshot.context.streamed]);
