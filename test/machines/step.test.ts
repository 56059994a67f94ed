import { describe, expect, it } from 'vitest';
import { initialTransition, type SnapshotFrom, transition } from 'xstate';
import type { ProviderErrorData } from '../../src/errors/provider-error.ts';
import { retryDelay } from '../../src/machines/retry-policy.ts';
import {
  type StepDoneEvent,
  type StepEvent,
  type StepInput,
  type StepOutput,
  stepMachine,
} from '../../src/machines/step.ts';
import { emptyUsage } from '../../src/providers/types.ts';
import {
  describeEffects,
  loggedEntries,
  type MachineAction,
  reportIn,
  sentEvents,
  spawnInput,
} from '../support/machine-effects.ts';

type Snapshot = SnapshotFrom<typeof stepMachine>;
type Action = MachineAction;

const input: StepInput = {
  agentKey: 'agent:a',
  turn: 1,
  model: 'm',
  toolNames: ['probe'],
  systemHash: 'h',
  retry: { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 32_000 },
  maxParallelTools: 4,
  jitterKey: 'agent',
};
const usage = { ...emptyUsage, inputTokens: 5, outputTokens: 7 };
const overloaded: ProviderErrorData = { kind: 'overloaded', message: 'busy', retryable: true };
const limited: ProviderErrorData = {
  kind: 'rate_limit',
  message: '429',
  retryable: true,
  retryAfterMs: 1_500,
};
const auth: ProviderErrorData = { kind: 'auth', message: 'bad key', retryable: false };
const call = { id: 'c1', name: 'probe', input: { value: '1' } };

const effects = (actions: readonly Action[]) => describeEffects(actions);
const logged = loggedEntries;

/** A step actor's snapshot advanced by pure transitions, begun as step 2; `actions` holds the last ones. */
class Step {
  snapshot: Snapshot;
  actions: readonly Action[];
  readonly started: readonly Action[];
  constructor(stepInput: StepInput = input) {
    [this.snapshot, this.started] = initialTransition(stepMachine, stepInput);
    [this.snapshot, this.actions] = transition(stepMachine, this.snapshot, { type: 'step.begin', step: 2 });
  }
  send(event: StepEvent): string[] {
    [this.snapshot, this.actions] = transition(stepMachine, this.snapshot, event);
    return effects(this.actions);
  }
  get out(): string[] {
    return effects(this.actions);
  }
  /** What the last transition reported to the turn, if it ended the step. */
  get output(): StepOutput | undefined {
    return reportIn<StepDoneEvent>(this.actions, 'step.done')?.output;
  }
}

const done = (
  text: string,
  toolCalls = [] as (typeof call)[],
  stopReason = 'end_turn' as const,
): StepEvent => ({
  type: 'model.done',
  text,
  toolCalls,
  usage,
  stopReason: toolCalls.length > 0 ? 'tool_use' : stopReason,
});

describe('stepMachine (pure transitions)', () => {
  it('starts idle with its model-call actor and tool batch, which live as long as the turn', () => {
    const [snapshot, actions] = initialTransition(stepMachine, input);
    expect(snapshot.value).toBe('idle');
    expect(effects(actions)).toEqual(['spawn model', 'spawn batch']);
    // The agent key is all the chart tells its actors about their dependencies.
    expect(spawnInput(actions, 'model')).toEqual({ agentKey: 'agent:a' });
    expect(spawnInput(actions, 'batch')).toEqual({ agentKey: 'agent:a', turn: 1, maxParallel: 4 });
  });

  it('on step.begin logs step.start and asks the model at once (preparing is transient)', () => {
    const step = new Step();
    expect(step.snapshot.value).toBe('requesting');
    expect(step.out).toEqual(['log step.start', 'send model model.request']);
    expect(logged(step.actions)[0]).toEqual({
      type: 'step.start',
      turn: 1,
      step: 2,
      data: { model: 'm', toolNames: ['probe'], systemHash: 'h' },
    });
    expect(sentEvents(step.actions)).toEqual([{ type: 'model.request', turn: 1, step: 2, attempt: 1 }]);
  });

  it('notes that text is streaming without logging it, then logs the whole answer, reports and waits again', () => {
    const step = new Step();
    expect(step.send({ type: 'model.streaming' })).toEqual([]);
    expect(step.snapshot.context.streamed).toBe(true);
    expect(step.send(done('Hello'))).toEqual(['log assistant.message', 'log step.end', 'report step.done']);
    expect(logged(step.actions)[0]?.data).toEqual({
      text: 'Hello',
      toolCalls: [],
      usage,
      stopReason: 'end_turn',
    });
    expect(step.snapshot.value).toBe('idle');
    expect(step.output).toEqual({ outcome: 'final', toolCalls: 0, unknownTools: 0, usage, usedTokens: 5 });
  });

  it('starts every step afresh: nothing of the last step leaks into the next', () => {
    const step = new Step();
    step.send({ type: 'model.error', error: overloaded });
    step.send({ type: 'retry.due' });
    step.send({ type: 'model.streaming' });
    step.send(done('x', [call]));
    step.send({ type: 'batch.done', output: { results: 1, unknownTools: 1, calls: 1 } });
    expect(step.snapshot.value).toBe('idle');
    expect(step.send({ type: 'step.begin', step: 3 })).toEqual([
      'log step.start',
      'send model model.request',
    ]);
    expect(sentEvents(step.actions)).toEqual([{ type: 'model.request', turn: 1, step: 3, attempt: 1 }]);
    expect(step.snapshot.context).toMatchObject({
      step: 3,
      attempt: 1,
      streamed: false,
      toolCalls: [],
      usage: emptyUsage,
      error: undefined,
      retryInMs: undefined,
      unknownTools: 0,
      canceled: false,
    });
  });

  it.each([
    ['max_tokens', 'max_tokens'],
    ['pause_turn', 'continue'],
    ['stop_sequence', 'final'],
  ] as const)('a %s stop ends the step with outcome %s', (stopReason, outcome) => {
    const step = new Step();
    step.send({ type: 'model.done', text: 'x', toolCalls: [], usage, stopReason });
    expect(step.output?.outcome).toBe(outcome);
  });

  it('hands tool calls to the batch and reports once the batch is done', () => {
    const step = new Step();
    expect(step.send(done('', [call]))).toEqual(['log assistant.message', 'send batch batch.begin']);
    expect(step.snapshot.value).toBe('executingTools');
    expect(sentEvents(step.actions)).toEqual([{ type: 'batch.begin', step: 2, calls: [call] }]);
    step.send({ type: 'batch.done', output: { results: 1, unknownTools: 1, calls: 1 } });
    expect(step.out).toEqual(['log step.end', 'report step.done']);
    expect(logged(step.actions)[0]?.data).toEqual({ toolResults: 1 });
    expect(step.output).toEqual({ outcome: 'tools', toolCalls: 1, unknownTools: 1, usage, usedTokens: 5 });
  });

  it('logs a retryable failure with its delay, waits for the timer, and tries again', () => {
    const step = new Step();
    step.send({ type: 'model.streaming' });
    expect(step.send({ type: 'model.error', error: limited })).toEqual([
      'log assistant.attempt',
      'spawn retryTimer',
    ]);
    expect(step.snapshot.value).toBe('waitingToRetry');
    expect(logged(step.actions)[0]).toEqual({
      type: 'assistant.attempt',
      turn: 1,
      step: 2,
      data: { error: limited, attempt: 1, retryInMs: 1_500 },
    });
    expect(spawnInput(step.actions, 'retryTimer')).toEqual({ delayMs: 1_500 });
    expect(step.send({ type: 'retry.due' })).toEqual(['stop retryTimer', 'send model model.request']);
    expect(sentEvents(step.actions)).toEqual([{ type: 'model.request', turn: 1, step: 2, attempt: 2 }]);
    expect(step.snapshot.context).toMatchObject({ attempt: 2, streamed: false, error: undefined });
  });

  it('backs off with the deterministic jitter of its key, then gives up at maxAttempts with model_error', () => {
    const step = new Step();
    step.send({ type: 'model.error', error: overloaded });
    const first = logged(step.actions)[0]?.data as { retryInMs: number };
    expect(first.retryInMs).toBe(retryDelay(overloaded, 1, input.retry!, 'agent:1:2'));
    step.send({ type: 'retry.due' });
    step.send({ type: 'model.error', error: overloaded });
    expect(logged(step.actions)[0]?.data).toMatchObject({ attempt: 2 });
    step.send({ type: 'retry.due' });
    expect(step.send({ type: 'model.error', error: overloaded })).toEqual([
      'log assistant.attempt',
      'log step.end',
      'report step.done',
    ]);
    expect(logged(step.actions)[0]?.data).toEqual({ error: overloaded, attempt: 3 });
    expect(step.output).toEqual({
      outcome: 'model_error',
      toolCalls: 0,
      unknownTools: 0,
      usage: emptyUsage,
      error: overloaded,
    });
  });

  it('gives up at once on a non-retryable error, logging the attempt without a retry', () => {
    const step = new Step();
    expect(step.send({ type: 'model.error', error: auth })).toEqual([
      'log assistant.attempt',
      'log step.end',
      'report step.done',
    ]);
    expect(logged(step.actions)[0]?.data).toEqual({ error: auth, attempt: 1 });
    expect(step.output).toMatchObject({ outcome: 'model_error', error: auth });
  });

  it('a cancel before any text aborts the request and ends the step with no assistant message', () => {
    const step = new Step();
    expect(step.send({ type: 'step.cancel' })).toEqual([
      'send model model.abort',
      'log step.end',
      'report step.done',
    ]);
    expect(step.output).toEqual({
      outcome: 'canceled',
      toolCalls: 0,
      unknownTools: 0,
      usage: emptyUsage,
    });
  });

  it('a cancel mid-stream asks the model call for the text consumers saw and logs it as interrupted', () => {
    const step = new Step();
    step.send({ type: 'model.streaming' });
    expect(step.send({ type: 'step.cancel' })).toEqual(['send model model.interrupt']);
    expect(step.snapshot.value).toBe('interrupting');
    // A late answer of the aborted request is not the text: only the model call's hand-over is.
    expect(step.send(done('Half a thought, and more'))).toEqual([]);
    expect(step.send({ type: 'model.interrupted', text: 'Half a thought' })).toEqual([
      'log assistant.message',
      'log step.end',
      'report step.done',
    ]);
    expect(logged(step.actions)[0]?.data).toEqual({
      text: 'Half a thought',
      toolCalls: [],
      usage: emptyUsage,
      stopReason: 'interrupted',
      interrupted: true,
    });
    expect(step.output?.outcome).toBe('canceled');
  });

  it('a cancel while waiting to retry stops the timer and reports canceled, not the error', () => {
    const step = new Step();
    step.send({ type: 'model.error', error: overloaded });
    expect(step.send({ type: 'step.cancel' })).toEqual([
      'stop retryTimer',
      'log step.end',
      'report step.done',
    ]);
    expect(step.output).toEqual({
      outcome: 'canceled',
      toolCalls: 0,
      unknownTools: 0,
      usage: emptyUsage,
    });
  });

  it('a cancel while tools run asks the batch to cancel and waits for its results', () => {
    const step = new Step();
    step.send(done('', [call]));
    expect(step.send({ type: 'step.cancel' })).toEqual(['send batch batch.cancel']);
    expect(step.snapshot.value).toBe('executingTools');
    step.send({ type: 'batch.done', output: { results: 1, unknownTools: 0, calls: 1 } });
    expect(step.out).toEqual(['log step.end', 'report step.done']);
    expect(step.output).toEqual({ outcome: 'canceled', toolCalls: 1, unknownTools: 0, usage, usedTokens: 5 });
  });

  it('ignores events that do not belong to the current state', () => {
    const step = new Step();
    expect(step.send({ type: 'retry.due' })).toEqual([]);
    expect(step.send({ type: 'batch.done', output: { results: 0, unknownTools: 0, calls: 0 } })).toEqual([]);
    expect(step.send({ type: 'step.begin', step: 9 })).toEqual([]);
    step.send({ type: 'model.error', error: overloaded });
    expect(step.send({ type: 'model.streaming' })).toEqual([]);
    expect(step.send({ type: 'model.interrupted', text: 'late' })).toEqual([]);
    expect(step.snapshot.value).toBe('waitingToRetry');
  });
});
