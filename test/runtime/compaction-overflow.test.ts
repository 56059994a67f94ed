// Overflow recovery: a request the provider refuses as too long is compacted once and tried again.
import { describe, expect, it } from 'vitest';
import { type ScriptStep, scripted } from '../../src/providers/scripted.ts';
import type { ModelRequest } from '../../src/providers/types.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { CompactionOptions } from '../../src/runtime/options.ts';
import { isCompactionRequest } from '../../src/session/compaction-request.ts';
import { repair } from '../../src/session/repair.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { counterIds } from '../support/crash-kit.ts';

const overflow: ScriptStep = { error: { kind: 'context_overflow', message: 'prompt is too long' } };

/** Runs a first turn that is answered at once, then a second whose model requests follow `script`. */
async function secondTurn(script: ScriptStep[], compaction: CompactionOptions = { keepRecentTurns: 1 }) {
  const model = scripted([{ text: 'First answer.' }, ...script]);
  const system = createAgentSystem({
    model,
    ids: counterIds(),
    projectInstructions: false,
    compaction,
  });
  const agent = await system.createAgent({ id: 'o' });
  await agent.run('First question');
  const before = agent.log().length;
  const result = await agent.run('Second question');
  const log = agent.log();
  await system.dispose();
  return { model, result, log, turn: log.slice(before, -1) };
}

const shape = (events: readonly LogEvent[]) =>
  events.map((event) => {
    if (event.type === 'assistant.attempt') {
      const { error, attempt, retryInMs } = event.data as {
        error: { kind: string };
        attempt: number;
        retryInMs: number;
      };
      return [event.type, error.kind, attempt, retryInMs];
    }
    if (event.type === 'compaction') return [event.type, event.data.trigger, event.data.replaces];
    if (event.type === 'turn.end') return [event.type, event.data.reason];
    return [event.type];
  });

const requestKinds = (requests: readonly ModelRequest[]) =>
  requests.map((request) => (isCompactionRequest(request) ? 'compaction' : 'step'));

describe('overflow recovery', () => {
  it('compacts once and retries the step when the provider refuses the request as too long', async () => {
    const { model, result, turn, log } = await secondTurn([
      overflow,
      { text: 'Summary.' },
      { text: 'Second answer.' },
    ]);
    expect(result).toMatchObject({ reason: 'completed', text: 'Second answer.' });
    // Everything before this turn's start (its queued question is claimed after the range).
    const before = turn[1]!.seq - 1;
    expect(shape(turn)).toEqual([
      ['inbox.queued'],
      ['turn.start'],
      ['inbox.claimed'],
      ['user.message'],
      ['step.start'],
      ['assistant.attempt', 'context_overflow', 1, 0],
      ['compaction', 'overflow', [1, before]],
      ['assistant.message'],
      ['step.end'],
      ['turn.end', 'completed'],
    ]);
    expect(requestKinds(model.requests)).toEqual(['step', 'step', 'compaction', 'step']);
    // The retried request shows the summary in place of the first turn, then the question.
    expect(model.requests[3]!.messages).toEqual([
      { role: 'user', content: '[Summary of earlier conversation]\nSummary.' },
      { role: 'user', content: 'Second question' },
    ]);
    model.assertConsumed();
    expect(repair(log, { now: () => 0 }).appended).toEqual([]);
  });

  it('ends the turn model_error with the cause when the request is still too long right after', async () => {
    const { result, turn } = await secondTurn([overflow, { text: 'Summary.' }, overflow]);
    expect(result.reason).toBe('model_error');
    const end = turn.at(-1)!;
    expect(end.data.error).toEqual({
      kind: 'context_overflow',
      message:
        'compaction could not shrink the request: the request was still too long after compaction (prompt is too long)',
      retryable: false,
    });
    expect(shape(turn).slice(4)).toEqual([
      ['step.start'],
      ['assistant.attempt', 'context_overflow', 1, 0],
      ['compaction', 'overflow', [1, turn[1]!.seq - 1]],
      ['assistant.attempt', 'context_overflow', 3, undefined],
      ['step.end'],
      ['turn.end', 'model_error'],
    ]);
  });

  it('ends the turn model_error with the cause when there is nothing older to compact', async () => {
    // With the last two turns kept and only one before, nothing is older.
    const { model, result, turn } = await secondTurn([overflow], { keepRecentTurns: 2 });
    expect(result.reason).toBe('model_error');
    expect((turn.at(-1)!.data.error as { message: string }).message).toBe(
      'compaction could not shrink the request: there is nothing older in the conversation to compact (prompt is too long)',
    );
    expect(requestKinds(model.requests)).toEqual(['step', 'step']);
    expect(shape(turn).slice(5)).toEqual([
      ['assistant.attempt', 'context_overflow', 1, 0],
      ['step.end'],
      ['turn.end', 'model_error'],
    ]);
  });

  it('ends the turn model_error when the summarising request overflows too', async () => {
    const { result, turn } = await secondTurn([overflow, overflow]);
    expect((turn.at(-1)!.data.error as { message: string }).message).toBe(
      'compaction could not shrink the request: the part to summarise does not fit the context window either (prompt is too long)',
    );
    expect(result.reason).toBe('model_error');
  });

  it('does not compact with compaction turned off: the overflow ends the turn as before', async () => {
    const { model, result, turn } = await secondTurn([overflow], { enabled: false });
    expect(result.reason).toBe('model_error');
    expect(turn.at(-1)!.data.error).toEqual({
      kind: 'context_overflow',
      message: 'prompt is too long',
      retryable: false,
    });
    expect(requestKinds(model.requests)).toEqual(['step', 'step']);
    // One request, refused: logged as the last attempt, with no retry.
    expect(shape(turn.filter((event) => event.type === 'assistant.attempt'))).toEqual([
      ['assistant.attempt', 'context_overflow', 1, undefined],
    ]);
  });

  it('retries a summarising request that failed for a retryable reason, logging the attempt', async () => {
    const busy: ScriptStep = { error: { kind: 'overloaded', retryAfterMs: 0, message: 'busy' } };
    const { result, turn } = await secondTurn([
      overflow,
      busy,
      { text: 'Summary.' },
      { text: 'Second answer.' },
    ]);
    expect(result.reason).toBe('completed');
    expect(shape(turn).slice(5, 8)).toEqual([
      ['assistant.attempt', 'context_overflow', 1, 0],
      ['assistant.attempt', 'overloaded', 2, 0],
      ['compaction', 'overflow', [1, turn[1]!.seq - 1]],
    ]);
  });
});
