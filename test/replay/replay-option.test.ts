// The one `replay` option of createAgentSystem, as a plain JavaScript caller could send it: checked where
// it enters, each mistake a ConfigError naming the field.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/config-error.ts';
import { scripted } from '../../src/providers/scripted.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';

const start = {
  v: 1,
  seq: 0,
  ts: 1,
  type: 'session.start',
  data: { agentId: 'a', config: { provider: 'scripted', model: 'scripted' } },
};

describe('the replay option', () => {
  it('is checked when the system is created: a recorded log and where tool results come from', () => {
    const model = scripted([]);
    const attempts = [
      5,
      { log: 'events.jsonl' },
      { log: [{ seq: 0 }] },
      { log: [start], toolResults: 'cached' },
      { log: [start], tools: 'recorded' },
    ];
    const messages = attempts.map((replay) => {
      try {
        createAgentSystem({ model, replay } as never);
        return 'accepted';
      } catch (error) {
        return ConfigError.isInstance(error) ? error.message : String(error);
      }
    });
    expect(messages).toEqual([
      'createAgentSystem: replay must be { log: LogEvent[], toolResults?: "recorded" | "live" }, got 5',
      'createAgentSystem: replay.log must be an array of log events, got "events.jsonl"',
      'createAgentSystem: replay.log must be the events of a recorded session: event 0: missing or invalid format version "v"',
      'createAgentSystem: replay.toolResults must be "recorded" or "live", got "cached"',
      'createAgentSystem: replay has an unknown key "tools"',
    ]);
    expect(() =>
      createAgentSystem({ model, replay: { log: [start] as never, toolResults: 'recorded' } }),
    ).not.toThrow();
  });
});
