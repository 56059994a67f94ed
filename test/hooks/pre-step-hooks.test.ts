// `preStep` as a list: hooks asked before every step as a waterfall, each decision logged; a block vetoes
// the step (the turn ends `blocked` with the reason). The single-function form keeps its own contract.
import { describe, expect, it } from 'vitest';
import { replaySession } from '../../src/replay/replay-session.ts';
import { assertSameLog } from '../../src/session/compare-logs.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { echoCall, echoTool, expectCancelAbortsHook, hookedAgent, hookTrail } from './hook-kit.ts';

const vetoOf = (log: readonly LogEvent[]) =>
  log
    .filter((event) => event.type === 'turn.end')
    .map((event) => (event.data as { vetoReason?: string }).vetoReason);

describe('preStep hook lists', () => {
  it('run in order before every step; a block vetoes the step and later hooks are not asked', async () => {
    const told: string[] = [];
    const { agent, system, model } = await hookedAgent(
      [{ toolCalls: [echoCall('c1', 'x')] }, { text: 'never' }],
      {
        hooks: {
          preStep: [
            ({ turn, step }) => {
              told.push(`first ${turn}.${step}`);
              return undefined;
            },
            ({ step }) => (step === 2 ? { decision: 'block', reason: 'one step is enough' } : undefined),
            ({ step }) => {
              told.push(`third ${step}`);
              return undefined;
            },
          ],
        },
      },
    );
    const result = await agent.run('go');
    expect(result.reason).toBe('blocked');
    expect(told).toEqual(['first 1.1', 'third 1', 'first 1.2']);
    expect(model.requests).toHaveLength(1);
    expect(vetoOf(agent.log())).toEqual(['one step is enough']);
    expect(hookTrail(agent.log())).toEqual([
      'preStep preStep[0] pass',
      'preStep preStep[1] pass',
      'preStep preStep[2] pass',
      'preStep preStep[0] pass',
      'preStep preStep[1] block: one step is enough',
    ]);
    // Logged with the step they were about, before it starts.
    const decided = agent.log().filter((event) => event.type === 'hook.decided');
    expect(decided.map((event) => `${event.turn}.${event.step}`)).toEqual([
      '1.1',
      '1.1',
      '1.1',
      '1.2',
      '1.2',
    ]);
    await system.dispose();
  });

  it('a throw is no opinion, logged; a command hook blocks with exit 2', async () => {
    const { agent, system } = await hookedAgent([{ text: 'never' }], {
      hooks: {
        preStep: [
          () => {
            throw new Error('boom');
          },
          {
            type: 'command',
            command: `node -e "const i=JSON.parse(require('fs').readFileSync(0,'utf8')); if (i.hook_event_name==='PreStep') { process.stderr.write('frozen until ' + i.step); process.exit(2); }"`,
          },
        ],
      },
    });
    expect((await agent.run('go')).reason).toBe('blocked');
    expect(vetoOf(agent.log())).toEqual(['frozen until 1']);
    expect(hookTrail(agent.log())).toEqual([
      'preStep preStep[0] error: the hook threw: boom',
      expect.stringMatching(/^preStep node -e .* block: frozen until 1$/),
    ]);
    await system.dispose();
  });

  it('the single function still vetoes by its own contract, and runs before the list', async () => {
    const order: string[] = [];
    const { agent, system } = await hookedAgent([{ text: 'done' }], {
      hooks: {
        preStep: async () => {
          order.push('function');
          return undefined;
        },
      },
    });
    expect((await agent.run('go')).reason).toBe('completed');
    expect(order).toEqual(['function']);
    // The single function's decisions are not hook.decided entries (its veto is turn.end.vetoReason).
    expect(hookTrail(agent.log())).toEqual([]);
    await system.dispose();
  });

  it('a cancel while a hook of the list runs aborts it; the turn ends canceled and no request is made', () =>
    expectCancelAbortsHook('preStep'));

  it('a replay answers the list from the log without running it', async () => {
    let runs = 0;
    const hooks = {
      preStep: [
        ({ step }: { step: number }) => {
          runs++;
          return step === 2 ? { decision: 'block' as const, reason: 'stop here' } : undefined;
        },
      ],
    };
    const { agent, system } = await hookedAgent([{ toolCalls: [echoCall('c1', 'x')] }], { hooks });
    await agent.run('go');
    await system.dispose();
    expect(runs).toBe(2);
    const recorded = [...agent.log()];
    const replayed = await replaySession(recorded, { setup: { tools: [echoTool()], hooks } });
    assertSameLog(recorded, replayed.events);
    expect(runs).toBe(2);
  });
});
