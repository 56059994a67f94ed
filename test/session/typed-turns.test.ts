// What the log says about typed runs, read by pure helpers: the output format of the turn the log is in
// (what the next request asks for), the final answer a check reads, how an answer is read as JSON, and
// what a resumed turn takes up again (its format, whose run it is, the checks that already failed).
import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../src/providers/types.ts';
import {
  currentOutputFormat,
  finalAnswerOf,
  outputOfTurn,
  parseAnswer,
} from '../../src/session/typed-turns.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { makeEvent } from '../support/store-contract.ts';

const spec = { schema: { type: 'object' }, maxRetries: 2 };
const answer = (seq: number, step: number, text: string) =>
  makeEvent(
    seq,
    'assistant.message',
    { text, toolCalls: [], usage: emptyUsage, stopReason: 'end_turn' },
    { turn: 2, step },
  );

/** Turn 1 free text; turn 2 typed, one answer refused, a second answer given. */
const log: LogEvent[] = [
  makeEvent(0, 'session.start', { agentId: 'a', config: {} }),
  makeEvent(1, 'turn.start', {}, { turn: 1 }),
  makeEvent(2, 'turn.end', { reason: 'completed', usage: emptyUsage }, { turn: 1 }),
  makeEvent(3, 'inbox.queued', { id: 'q1', channel: 'followup', message: 'Count', output: spec }),
  makeEvent(4, 'turn.start', { output: spec }, { turn: 2 }),
  makeEvent(5, 'inbox.claimed', { ids: ['q1'] }, { turn: 2 }),
  answer(6, 1, 'three'),
  makeEvent(7, 'output.checked', { valid: false, attempt: 1, error: 'not JSON' }, { turn: 2, step: 1 }),
  answer(8, 2, ' {"n": 3} '),
];

describe('typed turns in the log', () => {
  it('reads the output format of the open turn only', () => {
    expect(currentOutputFormat(log)).toEqual({ schema: { type: 'object' } });
    expect(currentOutputFormat(log.slice(0, 3))).toBeUndefined();
    expect(currentOutputFormat(log.slice(0, 2))).toBeUndefined();
  });

  it('reads the last answer of a turn as its final answer, as JSON with whitespace around it', () => {
    expect(finalAnswerOf(log, 2)).toBe(' {"n": 3} ');
    expect(finalAnswerOf(log, 1)).toBeUndefined();
    expect(parseAnswer(' {"n": 3} ')).toEqual({ ok: true, value: { n: 3 } });
    expect(parseAnswer('Sure: {"n": 3}')).toEqual({
      ok: false,
      error: 'the answer is not JSON: "Sure: {\\"n\\": 3}"',
    });
  });

  it('gives a resumed turn its format, its run and the checks that already failed', () => {
    expect(outputOfTurn(log, 2)).toEqual({ ...spec, inboxId: 'q1', failures: 1 });
    expect(outputOfTurn(log, 1)).toBeUndefined();
  });
});
