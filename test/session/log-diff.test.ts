import { describe, expect, it } from 'vitest';
import { formatChange } from '../../src/errors/replay-divergence-error.ts';
import { firstDivergence } from '../../src/session/compare-logs.ts';
import { diffEvents } from '../../src/session/log-diff.ts';
import type { LogEvent } from '../../src/session/types.ts';

const event = (seq: number, type: string, data: unknown, ts = 0) =>
  ({ v: 1, seq, ts, type, data }) as LogEvent;

describe('diffEvents', () => {
  it('names the changed field with both values, long strings shortened around the first difference', () => {
    const before = `${'a'.repeat(100)}OLD${'z'.repeat(100)}`;
    const after = `${'a'.repeat(100)}NEW${'z'.repeat(100)}`;
    const changes = diffEvents(
      event(3, 'tool.result', { content: before }),
      event(3, 'tool.result', { content: after }),
    );
    expect(changes.map(formatChange)).toEqual([
      `data.content: "…${'a'.repeat(24)}OLD${'z'.repeat(53)}…" → "…${'a'.repeat(24)}NEW${'z'.repeat(53)}…"`,
    ]);
    const short = diffEvents({ content: 'Created' }, { content: 'Overwrote\n' });
    expect(short.map(formatChange)).toEqual(['content: "Created" → "Overwrote\\n"']);
  });

  it('compares named lists by name: entries added and removed, then fields, then order', () => {
    const tool = (name: string, description = name) => ({ name, description });
    expect(
      diffEvents(
        { tools: [tool('read'), tool('task')] },
        { tools: [tool('read', 'Reads.'), tool('bash')] },
      ).map(formatChange),
    ).toEqual(['tools: - task', 'tools: + bash', 'tools[read].description: "read" → "Reads."']);
    expect(diffEvents({ toolNames: ['a', 'b'] }, { toolNames: ['b', 'a'] }).map(formatChange)).toEqual([
      'toolNames (order): a, b → b, a',
    ]);
  });

  it('lists other arrays by index and keys that came or went', () => {
    expect(diffEvents({ ids: [1, 2], gone: true }, { ids: [1, 3, 4], extra: 'x' }).map(formatChange)).toEqual(
      ['ids[1]: 2 → 3', 'ids[2]: + 4', 'gone: - true', 'extra: + "x"'],
    );
  });
});

describe('firstDivergence', () => {
  const start = event(0, 'session.start', { agentId: 'a', config: {} });
  const call = event(1, 'tool.call', { callId: 'c1', name: 'read_file', input: { path: 'a' } });
  const asked = event(2, 'approval.asked', { callId: 'c1' });
  const decided = event(2, 'approval.decided', { callId: 'c1', outcome: 'deny', by: 'headless' });

  it('says which tool answered differently', () => {
    const recorded = [start, call, event(2, 'tool.result', { callId: 'c1', outcome: 'ok', content: 'one' })];
    const replayed = [start, call, event(2, 'tool.result', { callId: 'c1', outcome: 'ok', content: 'two' })];
    const divergence = firstDivergence(recorded, replayed)!;
    expect(divergence.toJSON()).toEqual({
      seq: 2,
      recordedType: 'tool.result',
      replayedType: 'tool.result',
      reason: 'read_file answered differently',
      changes: [{ path: 'data.content', change: 'changed', recorded: '"one"', replayed: '"two"' }],
      recorded: JSON.stringify(recorded[2]),
      replayed: JSON.stringify(replayed[2]),
    });
    expect(divergence.message).toBe(
      'replay diverged at seq 2 (tool.result): read_file answered differently\n  data.content: "one" → "two"',
    );
  });

  it('says where the runtime asked for approval and the recording decided, and where the replay stopped', () => {
    expect(firstDivergence([start, call, decided], [start, call, asked])?.reason).toBe(
      'the runtime asked for approval where the recording decided headless (read_file call c1)',
    );
    const stopped = firstDivergence(
      [start, call, decided],
      [start, call],
      'the runtime wrote nothing for 10 s',
    );
    expect(stopped?.toJSON()).toMatchObject({
      seq: 2,
      recordedType: 'approval.decided',
      replayedType: undefined,
      reason: 'the replay stopped early: the runtime wrote nothing for 10 s',
      changes: [],
      stopped: 'the runtime wrote nothing for 10 s',
    });
    expect(stopped?.message).toBe(
      'replay diverged at seq 2 (approval.decided): the replay stopped early: the runtime wrote nothing for 10 s',
    );
    expect(firstDivergence([start, call], [start, call])).toBeUndefined();
  });

  it('lists the first 20 changed fields and counts the rest', () => {
    const fields = (value: number) =>
      Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`f${i}`, value]));
    const divergence = firstDivergence(
      [start, event(1, 'environment', fields(1))],
      [start, event(1, 'environment', fields(2))],
    )!;
    expect(divergence.changes).toHaveLength(20);
    expect(divergence.changes[19]).toEqual({
      path: 'data.f19',
      change: 'changed',
      recorded: '1',
      replayed: '2',
    });
    expect(divergence.toJSON().moreChanges).toBe(5);
    expect(divergence.message.split('\n').at(-1)).toBe('  … and 5 more fields');
  });
});
