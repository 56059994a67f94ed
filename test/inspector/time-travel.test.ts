import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import { computeFrames, type MachineFrame } from '../../src/inspector/time-travel.ts';
import { scripted } from '../../src/providers/scripted.ts';
import type { ActorSnapshot } from '../../src/runtime/agent-view.ts';
import { parseLogText } from '../../src/session/log-text.ts';
import { fixturePath, replayClockStart, runScenario, scenarios } from '../replay/scenarios.ts';

/** The tree without contexts: what the charts light. */
function states(node: MachineFrame | ActorSnapshot): unknown {
  return { id: node.id, value: node.value, status: node.status, children: node.children.map(states) };
}

describe.each(scenarios)('time travel on the fixture $name', (scenario) => {
  it('gives, at every seq, the states the live runtime had when that event was written', async () => {
    // The live run: the scripted model the fixture was recorded with, a snapshot after each event.
    const live: unknown[] = [];
    const clock = new SimulatedClock(replayClockStart);
    const recorded = await runScenario(scenario, scripted(scenario.script, { clock }), clock, (agent) => {
      const take = (seq: number) => {
        const { contextUsage: _usage, ...tree } = agent.snapshot();
        live[seq] = states(tree);
      };
      for (const event of agent.log()) take(event.seq);
      agent.onLog((event) => queueMicrotask(() => take(event.seq)));
    });
    const file = parseLogText(await readFile(fixturePath(scenario.name), 'utf8'), scenario.name).events;
    expect(JSON.stringify(recorded)).toBe(JSON.stringify(file));

    // Time travel on the recording: computed by re-running it, with stand-ins for its tools.
    // Nothing but the log: the compaction policy a fixture changes is recorded in its session.start.
    const { frames, note } = await computeFrames(file);
    expect(note).toBeUndefined();
    expect(frames).toHaveLength(file.length);
    let compared = 0;
    for (let seq = 0; seq < file.length; seq++) {
      expect({ seq, states: states(frames[seq]!) }).toEqual({ seq, states: live[seq] });
      compared++;
    }
    expect(compared).toBe(file.length);
  });
});
