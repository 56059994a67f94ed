import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLogText } from '../../src/session/log-text.ts';
import { project } from '../../src/session/projection.ts';
import { ProjectionCache } from '../../src/session/projection-cache.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { buildLog, planArbitrary } from '../support/log-arbitrary.ts';

const options = { system: 'sys', tools: [] };

/** Projects every prefix of `log` in order through one cache, as the runtime does step by step. */
function expectSameOnEveryPrefix(log: readonly LogEvent[]): number {
  const cache = new ProjectionCache();
  for (let length = 0; length <= log.length; length++) {
    const prefix = log.slice(0, length);
    expect(cache.project(prefix, options)).toEqual(project(prefix, options));
  }
  return log.length + 1;
}

describe('ProjectionCache', () => {
  it('equals project() on every prefix of generated logs (compactions, out-of-order results, repeated ids)', () => {
    let checked = 0;
    fc.assert(
      fc.property(planArbitrary, (plan) => {
        checked += expectSameOnEveryPrefix(buildLog(plan));
      }),
      { numRuns: 200 },
    );
    expect(checked).toBeGreaterThan(200);
  });

  it('equals project() on every prefix of the recorded replay fixture', async () => {
    const file = 'test/fixtures/replay/parallel-retry-unknown.jsonl';
    const { events } = parseLogText(await readFile(file, 'utf8'), file);
    expect(expectSameOnEveryPrefix(events)).toBe(events.length + 1);
  });

  it('never changes a messages array it handed out: a later projection leaves an earlier request as it was', () => {
    const file: LogEvent[] = [
      { v: 1, seq: 0, ts: 0, type: 'session.start', data: { agentId: 'a', config: {} } },
      { v: 1, seq: 1, ts: 0, type: 'user.message', turn: 1, data: { channel: 'followup', content: 'hi' } },
    ];
    const cache = new ProjectionCache();
    const first = cache.project(file, options);
    const more: LogEvent = {
      v: 1,
      seq: 2,
      ts: 0,
      type: 'user.message',
      turn: 1,
      data: { channel: 'steer', content: 'more' },
    };
    const second = cache.project([...file, more], options);
    expect(first.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(second.messages).toEqual(project([...file, more], options).messages);
    expect(second.messages).not.toBe(first.messages);
  });
});
