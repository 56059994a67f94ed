// Retrying a model request is a state of the step: every failed attempt is logged with the exact wait,
// the wait runs on the injected clock (no real time passes), and the step gives up after the limit.
import { describe, expect, it } from 'vitest';
import { defaultRetryPolicy, retryDelay } from '../../src/machines/retry-policy.ts';
import {
  createHarness,
  disposeAndCheck,
  type Harness,
  logTuples,
  startRun,
} from '../graph/support/driver.ts';
import { settle } from '../support/controllable.ts';

const fromTurnStart = (harness: Harness) => {
  const log = harness.agent.log();
  return logTuples(
    log,
    log.findIndex((event) => event.type === 'turn.start'),
  );
};

const attempts = (harness: Harness) =>
  harness.agent
    .log()
    .filter((event) => event.type === 'assistant.attempt')
    .map((event) => event.data);

describe('model request retry on a simulated clock', () => {
  it('429 with retry-after, then overloaded, then 500, then success: every wait exact and logged', async () => {
    const harness = await createHarness({ agentId: 'a' });
    await startRun(harness);
    const started = harness.clock.now();
    (await harness.model.request(0)).fail('rate_limit', 2_000);
    await settle();
    expect(harness.agent.state).toBe('ready.running');
    expect(harness.clock.pendingTimers).toBe(1);
    expect(harness.model.requests).toHaveLength(1);
    expect(harness.clock.runNext()).toBe(true);
    await settle();
    (await harness.model.request(1)).fail('overloaded');
    await settle();
    harness.clock.runNext();
    await settle();
    (await harness.model.request(2)).fail('server');
    await settle();
    harness.clock.runNext();
    await settle();
    (await harness.model.request(3)).answer('Finally.');
    const result = await harness.run!;
    expect(result).toMatchObject({ reason: 'completed', text: 'Finally.' });

    const backoff = (kind: 'overloaded' | 'server', attempt: number) =>
      retryDelay({ kind, message: '', retryable: true }, attempt, defaultRetryPolicy, 'a:1:1')!;
    // Exponential from 1 s, minus a jitter of at most a quarter that the key fixes.
    expect(backoff('overloaded', 2)).toBe(1_662);
    expect(backoff('server', 3)).toBe(3_319);
    expect(attempts(harness)).toEqual([
      {
        error: { kind: 'rate_limit', message: 'test rate_limit', retryable: true, retryAfterMs: 2_000 },
        attempt: 1,
        retryInMs: 2_000,
      },
      {
        error: { kind: 'overloaded', message: 'test overloaded', retryable: true },
        attempt: 2,
        retryInMs: 1_662,
      },
      { error: { kind: 'server', message: 'test server', retryable: true }, attempt: 3, retryInMs: 3_319 },
    ]);
    // Time moved only by the logged waits.
    expect(harness.clock.now() - started).toBe(2_000 + 1_662 + 3_319);
    expect(fromTurnStart(harness)).toEqual([
      ['turn.start'],
      ['inbox.claimed'],
      ['user.message'],
      ['step.start'],
      ['assistant.attempt'],
      ['assistant.attempt'],
      ['assistant.attempt'],
      ['assistant.message'],
      ['step.end'],
      ['turn.end'],
    ]);
    await disposeAndCheck(harness);
  });

  it('gives up after limits.maxAttempts with model_error, and turn.end carries the error', async () => {
    const harness = await createHarness({ limits: { maxAttempts: 3 } });
    await startRun(harness);
    for (let i = 0; i < 3; i++) {
      (await harness.model.request(i)).fail('overloaded');
      await settle();
      if (i < 2) harness.clock.runNext();
      await settle();
    }
    const result = await harness.run!;
    expect(result.reason).toBe('model_error');
    expect(harness.model.requests).toHaveLength(3);
    expect(harness.clock.pendingTimers).toBe(0);
    // Every failed request is logged; the last one without a retry delay.
    expect(attempts(harness).map((data) => [data.attempt, 'retryInMs' in data])).toEqual([
      [1, true],
      [2, true],
      [3, false],
    ]);
    const end = harness.agent.log().find((event) => event.type === 'turn.end');
    expect(end?.data).toEqual({
      reason: 'model_error',
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      error: { kind: 'overloaded', message: 'test overloaded', retryable: true },
    });
    await disposeAndCheck(harness);
  });

  it('does not retry a non-retryable error', async () => {
    const harness = await createHarness();
    await startRun(harness);
    (await harness.model.request(0)).fail('auth');
    const result = await harness.run!;
    expect(result.reason).toBe('model_error');
    expect(attempts(harness)).toEqual([
      { error: { kind: 'auth', message: 'test auth', retryable: false }, attempt: 1 },
    ]);
    expect(harness.clock.pendingTimers).toBe(0);
    expect(fromTurnStart(harness)).toEqual([
      ['turn.start'],
      ['inbox.claimed'],
      ['user.message'],
      ['step.start'],
      ['assistant.attempt'],
      ['step.end'],
      ['turn.end'],
    ]);
    await disposeAndCheck(harness);
  });
});

describe('cancel at every state of a step around its model request', () => {
  it('requesting, before any delta: no assistant message, the request is aborted', async () => {
    const harness = await createHarness();
    await startRun(harness);
    const request = await harness.model.request(0);
    harness.agent.cancel();
    const result = await harness.run!;
    expect(result.reason).toBe('canceled');
    expect(request.aborted).toBe(true);
    expect(fromTurnStart(harness)).toEqual([
      ['turn.start'],
      ['inbox.claimed'],
      ['user.message'],
      ['step.start'],
      ['cancel.requested'],
      ['step.end'],
      ['turn.end'],
    ]);
    expect(harness.agent.log().at(-1)?.data).toMatchObject({ reason: 'canceled', cause: 'user' });
    await disposeAndCheck(harness);
  });

  it('requesting, mid-stream with text: the text becomes an interrupted message, half-built calls do not', async () => {
    const harness = await createHarness();
    await startRun(harness);
    const request = await harness.model.request(0);
    request.delta('Let me ').delta('look').toolCall('c1', 'probe', { value: '1' });
    await settle();
    harness.agent.cancel();
    expect((await harness.run!).reason).toBe('canceled');
    expect(fromTurnStart(harness)).toEqual([
      ['turn.start'],
      ['inbox.claimed'],
      ['user.message'],
      ['step.start'],
      ['cancel.requested'],
      ['assistant.message'],
      ['step.end'],
      ['turn.end'],
    ]);
    const message = harness.agent.log().find((event) => event.type === 'assistant.message');
    expect(message?.data).toMatchObject({ text: 'Let me look', toolCalls: [], interrupted: true });
    await disposeAndCheck(harness);
  });

  it('waitingToRetry: the timer is dropped and no further request is made', async () => {
    const harness = await createHarness();
    await startRun(harness);
    (await harness.model.request(0)).fail('overloaded');
    await settle();
    expect(harness.clock.pendingTimers).toBe(1);
    harness.agent.cancel();
    expect((await harness.run!).reason).toBe('canceled');
    expect(harness.clock.pendingTimers).toBe(0);
    expect(harness.model.requests).toHaveLength(1);
    expect(fromTurnStart(harness)).toEqual([
      ['turn.start'],
      ['inbox.claimed'],
      ['user.message'],
      ['step.start'],
      ['assistant.attempt'],
      ['cancel.requested'],
      ['step.end'],
      ['turn.end'],
    ]);
    const end = harness.agent.log().find((event) => event.type === 'turn.end');
    expect(end?.data).not.toHaveProperty('error');
    await disposeAndCheck(harness);
  });
});
