import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import { ConfigError } from '../../src/errors/config-error.ts';
import { emptyUsage } from '../../src/providers/types.ts';
import { forkEvents } from '../../src/session/fork.ts';
import { validateSequence } from '../../src/session/schema.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { makeEvent, sampleLog } from '../support/store-contract.ts';

/** Two complete turns (turn.end at 6 and 10), then an open third turn. */
function source(): LogEvent[] {
  return [
    ...sampleLog(),
    makeEvent(7, 'turn.start', {}, { turn: 2 }),
    makeEvent(8, 'user.message', { channel: 'followup', content: 'again' }, { turn: 2 }),
    makeEvent(
      9,
      'compaction',
      { replaces: [1, 6], summary: 'turn one', tokensBefore: 1000, trigger: 'auto' },
      { turn: 2 },
    ),
    makeEvent(10, 'turn.end', { reason: 'completed', usage: emptyUsage }, { turn: 2 }),
    makeEvent(11, 'turn.start', {}, { turn: 3 }),
    makeEvent(12, 'user.message', { channel: 'followup', content: 'open' }, { turn: 3 }),
  ];
}

const options = { newAgentId: 'fork-agent', sourceSessionId: 'src', clock: new SimulatedClock(9000) };
const seedStart = (atSeq: number) =>
  makeEvent(
    0,
    'session.start',
    { agentId: 'fork-agent', forkOf: { sessionId: 'src', atSeq }, config: { model: 'scripted' } },
    { ts: 9000 },
  );

describe('forkEvents', () => {
  it('seeds a new session with the prefix up to a turn boundary, keeping ts and seq', () => {
    const forked = forkEvents(source(), { ...options, atSeq: 6 });
    expect(forked).toEqual([seedStart(6), ...source().slice(1, 7)]);
    expect(() => validateSequence(forked)).not.toThrow();
  });

  it('defaults to the last turn boundary', () => {
    expect(forkEvents(source(), options)).toEqual([seedStart(10), ...source().slice(1, 11)]);
  });

  it('forks at the session start into an empty session', () => {
    expect(forkEvents(source(), { ...options, atSeq: 0 })).toEqual([seedStart(0)]);
    expect(forkEvents(source().slice(0, 1), options)).toEqual([seedStart(0)]);
  });

  it('refuses a seq that is not a turn boundary, naming the nearest ones', () => {
    expect(() => forkEvents(source(), { ...options, atSeq: 8 })).toThrow(
      new ConfigError(
        'cannot fork session "src" at seq 8: it is not a turn boundary (nearest boundaries: 6 before, 10 after)',
      ),
    );
    expect(() => forkEvents(source(), { ...options, atSeq: 12 })).toThrow(
      'cannot fork session "src" at seq 12: it is not a turn boundary (nearest boundaries: 10 before, none after)',
    );
    expect(() => forkEvents(source(), { ...options, atSeq: 13 })).toThrow(
      'cannot fork session "src" at seq 13: its log has seq 0..12',
    );
  });

  it('does not share data objects with the source', () => {
    const log = source();
    const forked = forkEvents(log, { ...options, atSeq: 6 });
    (forked[2]?.data as { content: string }).content = 'changed';
    expect(log[2]?.data).toEqual({ channel: 'followup', content: 'hi' });
  });
});
