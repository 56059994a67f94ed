import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import { ReplayDivergenceError } from '../../src/errors/replay-divergence-error.ts';
import { scripted } from '../../src/providers/scripted.ts';
import { assertSameLog } from '../../src/session/compare-logs.ts';
import { parseLogText } from '../../src/session/log-text.ts';
import { replay } from '../../src/session/replay-provider.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { fixturePath, replayClockStart, runScenario, scenarios } from './scenarios.ts';

async function loadFixture(name: string): Promise<LogEvent[]> {
  const text = await readFile(fixturePath(name), 'utf8');
  return parseLogText(text, fixturePath(name)).events;
}

describe.each(scenarios)('replay fixture $name', (scenario) => {
  it('replays through the real runtime to the same log, byte for byte', async () => {
    const recorded = await loadFixture(scenario.name);
    const clock = new SimulatedClock(replayClockStart);
    const model = replay(recorded, { clock });
    const actual = await runScenario(scenario, model, clock);
    model.assertConsumed();
    assertSameLog(recorded, actual);
    expect(actual).toHaveLength(recorded.length);
  });

  it('is what the runtime writes today for the scripted run (else re-record with npm run fixtures)', async () => {
    const recorded = await loadFixture(scenario.name);
    const clock = new SimulatedClock(replayClockStart);
    const actual = await runScenario(scenario, scripted(scenario.script, { clock }), clock);
    assertSameLog(recorded, actual);
  });
});

describe('the replay provider', () => {
  it('reports the context window the recording was made with, so compaction happens at the same steps', async () => {
    const recorded = await loadFixture('compactions');
    const start = recorded[0]!.data.config as { contextWindow: number };
    expect([start.contextWindow, replay(recorded).contextWindow]).toEqual([1_000, 1_000]);
  });
});

describe('assertSameLog', () => {
  it('names the first diverging seq with both lines', async () => {
    const recorded = await loadFixture('parallel-retry-unknown');
    const changed = recorded.map((event) =>
      event.type === 'tool.result' && event.data.callId === 'c2'
        ? { ...event, data: { ...event.data, content: 'value of B' } }
        : event,
    );
    const divergence = (() => {
      try {
        assertSameLog(recorded, changed);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(ReplayDivergenceError.isInstance(divergence)).toBe(true);
    const error = divergence as ReplayDivergenceError;
    const seq = recorded.findIndex((event) => event.type === 'tool.result' && event.data.callId === 'c2');
    expect(error.seq).toBe(seq);
    expect(error.expected).toContain('"content":"value of b"');
    expect(error.actual).toContain('"content":"value of B"');
  });

  it('reports a missing tail as the end of the log', async () => {
    const recorded = await loadFixture('parallel-retry-unknown');
    expect(() => assertSameLog(recorded, recorded.slice(0, -1))).toThrow(
      `replay diverged at seq ${recorded.length - 1} (session.end): the replay ended where the recording goes on with session.end`,
    );
  });
});
