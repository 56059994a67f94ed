// `requestError` hooks: a failed model request asks the hooks, which may retry after a delay they name or
// give up, in place of the retry policy; attempts stay bounded by `limits.maxAttempts`.
import { describe, expect, it } from 'vitest';
import { replaySession } from '../../src/replay/replay-session.ts';
import { assertSameLog } from '../../src/session/compare-logs.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { echoTool, hookedAgent, hookTrail } from './hook-kit.ts';

const rateLimited = { error: { kind: 'rate_limit' as const, message: 'slow down' } };
const unauthorized = { error: { kind: 'auth' as const, message: 'bad key' } };

const attempts = (log: readonly LogEvent[]) =>
  log.filter((event) => event.type === 'assistant.attempt').map((event) => event.data.retryInMs ?? 'gave up');

describe('requestError hooks', () => {
  it('give up where the policy would retry', async () => {
    const told: unknown[] = [];
    const { agent, system, model } = await hookedAgent([rateLimited, { text: 'never' }], {
      retry: { baseDelayMs: 1 },
      hooks: {
        requestError: [
          ({ error, attempt, retryInMs }) => {
            told.push({ kind: error.kind, attempt, retryInMs });
            return { decision: 'block', reason: 'no retries on Fridays' };
          },
        ],
      },
    });
    expect((await agent.run('go')).reason).toBe('model_error');
    expect(told).toEqual([{ kind: 'rate_limit', attempt: 1, retryInMs: 1 }]);
    expect(attempts(agent.log())).toEqual(['gave up']);
    expect(hookTrail(agent.log())).toEqual(['requestError requestError[0] block: no retries on Fridays']);
    expect(model.requests).toHaveLength(1);
    await system.dispose();
  });

  it('retry after the delay they name where the policy would give up', async () => {
    const { agent, system } = await hookedAgent([unauthorized, { text: 'in' }], {
      hooks: { requestError: [({ error }) => (error.kind === 'auth' ? { delayMs: 3 } : undefined)] },
    });
    const result = await agent.run('go');
    expect(result).toMatchObject({ reason: 'completed', text: 'in' });
    expect(attempts(agent.log())).toEqual([3]);
    expect(hookTrail(agent.log())).toEqual(['requestError requestError[0] modify']);
    await system.dispose();
  });

  it('no opinion (or garbage) keeps the policy; attempts stay bounded by maxAttempts', async () => {
    const { agent, system } = await hookedAgent([rateLimited, rateLimited, rateLimited, { text: 'never' }], {
      retry: { baseDelayMs: 1 },
      limits: { maxAttempts: 3 },
      hooks: { requestError: [() => ({ delayMs: 2 }), () => 'what' as never] },
    });
    expect((await agent.run('go')).reason).toBe('model_error');
    expect(attempts(agent.log())).toEqual([2, 2, 'gave up']);
    expect(hookTrail(agent.log()).filter((line) => line.includes('invalid'))).toHaveLength(3);
    await system.dispose();
  });

  it('a command hook gives up with exit 2; the replay answers from the log', async () => {
    const { agent, system } = await hookedAgent([rateLimited, { text: 'never' }], {
      retry: { baseDelayMs: 1 },
      hooks: {
        requestError: [
          {
            type: 'command',
            command: `node -e "const i=JSON.parse(require('fs').readFileSync(0,'utf8')); if (i.hook_event_name==='RequestError' && i.error.kind==='rate_limit') { process.stderr.write('quota'); process.exit(2); }"`,
          },
        ],
      },
    });
    expect((await agent.run('go')).reason).toBe('model_error');
    expect(hookTrail(agent.log())).toEqual([expect.stringMatching(/^requestError node -e .* block: quota$/)]);
    await system.dispose();
    const recorded = [...agent.log()];
    const replayed = await replaySession(recorded, { setup: { tools: [echoTool()] } });
    assertSameLog(recorded, replayed.events);
  });

  it('a command hook retries with hookSpecificOutput.delayMs, and silence keeps the policy', async () => {
    const retry = `node -e "process.stdout.write(JSON.stringify({ hookSpecificOutput: { delayMs: 4 } }))"`;
    const silent = 'true';
    const { agent, system } = await hookedAgent([unauthorized, rateLimited, { text: 'in' }], {
      retry: { baseDelayMs: 1 },
      hooks: {
        requestError: [
          { type: 'command', command: silent },
          {
            type: 'command',
            command: `[ "$(node -e "process.stdout.write(JSON.parse(require('fs').readFileSync(0,'utf8')).error.kind)")" = auth ] && ${retry} || true`,
          },
        ],
      },
    });
    expect((await agent.run('go')).reason).toBe('completed');
    // auth: the policy gives up, the hook retries after 4 ms; rate_limit: the hook is silent, the policy's backoff for a second attempt (2 ms).
    expect(attempts(agent.log())).toEqual([4, 2]);
    expect(hookTrail(agent.log()).map((line) => line.split(' ').at(-1))).toEqual([
      'pass',
      'modify',
      'pass',
      'pass',
    ]);
    await system.dispose();
  });
});
