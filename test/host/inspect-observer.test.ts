// `system.inspect(observer)` calls the host's observer inside the actors' work: a bad observer must not
// reach them. Run in a child process, because without the guard the turn never ends.
import { describe, expect, it } from 'vitest';
import { ConfigError, createAgentSystem } from '../../src/index.ts';
import { scripted } from '../../src/testing.ts';
import { runScript } from '../support/child-run.ts';

describe('system.inspect with a host observer', () => {
  it.each(['function', 'object'])(
    'an observer (%s) that throws is unsubscribed with a warning; the turn and dispose finish',
    async (kind) => {
      const run = await runScript('test/fixtures/boundary/inspect-observer.ts', { args: [kind] });
      expect({ code: run.code, timedOut: run.timedOut }).toEqual({ code: 0, timedOut: false });
      expect(JSON.parse(run.stdout)).toEqual({
        reason: 'completed',
        disposed: true,
        calls: 1,
        escaped: [],
        warnings: ['agentchart: an inspect() observer threw and was unsubscribed: observer broke'],
      });
    },
  );

  it('refuses an observer that is neither a function nor an object with next, naming it', () => {
    const system = createAgentSystem({ model: scripted([]), projectInstructions: false });
    for (const observer of [5, 'log', null, {}, { next: 'x' }]) {
      const attempt = () => system.inspect(observer as unknown as () => void);
      expect(attempt).toThrow(ConfigError);
      expect(attempt).toThrow(/^inspect: observer must be a function or an observer with a next function/);
    }
  });
});
