import { describe, expect, it } from 'vitest';
import type { HookAnswer } from '../../src/hooks/hook-types.ts';
import { maxStopRefusals } from '../../src/machines/hook-events.ts';
import { echoCall, hookedAgent, hookTrail, results } from './hook-kit.ts';

describe('preTool hooks (in process)', () => {
  it('pass, rewrite and deny, in order, each seeing the input the one before left', async () => {
    const seen: unknown[] = [];
    const { agent, system, ran, model } = await hookedAgent(
      [{ toolCalls: [echoCall('c1', 'one'), echoCall('c2', 'two')] }, { text: 'Done.' }],
      {
        hooks: {
          preTool: [
            function observe({ toolInput }) {
              seen.push(toolInput);
              return undefined;
            },
            function shout({ toolInput }) {
              return { input: { text: String((toolInput as { text: string }).text).toUpperCase() } };
            },
            function refuseTwo({ toolInput }) {
              seen.push(toolInput);
              return (toolInput as { text: string }).text === 'TWO'
                ? { decision: 'deny', reason: 'not two' }
                : undefined;
            },
          ],
        },
      },
    );
    const result = await agent.run('go');
    expect(result.reason).toBe('completed');
    expect(ran).toEqual(['ONE']);
    expect(seen).toEqual([{ text: 'one' }, { text: 'ONE' }, { text: 'two' }, { text: 'TWO' }]);
    expect(hookTrail(agent.log())).toEqual([
      'preTool observe pass',
      'preTool shout modify',
      'preTool refuseTwo pass',
      'preTool observe pass',
      'preTool shout modify',
      'preTool refuseTwo deny: not two',
    ]);
    expect(results(agent.log())).toEqual([
      'c1 ok echo: ONE',
      'c2 denied Permission denied by hook refuseTwo: not two',
    ]);
    // The model reads the denial.
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({ role: 'tool', callId: 'c2', isError: true });
    await system.dispose();
  });

  it('fails closed: a hook that throws, times out or answers garbage denies the call', async () => {
    const cases: Array<[string, () => unknown, string]> = [
      [
        'throws',
        () => {
          throw new Error('boom');
        },
        'error',
      ],
      ['hangs', () => new Promise(() => {}), 'timeout'],
      ['garbage', () => ({ decision: 'maybe' }), 'invalid'],
      ['string', () => 'yes', 'invalid'],
    ];
    for (const [name, run, outcome] of cases) {
      const { agent, system, ran } = await hookedAgent(
        [{ toolCalls: [echoCall('c1', 'x')] }, { text: 'ok' }],
        {
          hooks: { preTool: [{ name, timeoutMs: 50, run: run as () => HookAnswer }] },
        },
      );
      await agent.run('go');
      expect(ran).toEqual([]);
      const trail = hookTrail(agent.log());
      expect(trail).toHaveLength(1);
      expect(trail[0]).toMatch(new RegExp(`^preTool ${name} ${outcome}: `));
      expect(results(agent.log())[0]).toMatch(new RegExp(`^c1 denied Permission denied by hook ${name}: `));
      await system.dispose();
    }
  });

  it('ask with nobody to approve is a denial; ask with an approver asks; allow skips the question', async () => {
    const headless = await hookedAgent([{ toolCalls: [echoCall('c1', 'x')] }, { text: 'ok' }], {
      hooks: { preTool: [() => ({ decision: 'ask', reason: 'check first' })] },
    });
    await headless.agent.run('go');
    expect(headless.ran).toEqual([]);
    expect(results(headless.agent.log())[0]).toMatch(
      /^c1 denied Permission denied: a hook asked for approval \(check first\)/,
    );
    await headless.system.dispose();

    const asked: string[] = [];
    const approved = await hookedAgent([{ toolCalls: [echoCall('c1', 'x')] }, { text: 'ok' }], {
      hooks: { preTool: [() => ({ decision: 'ask' })] },
      approve: async ({ callId }) => {
        asked.push(callId);
        return 'allow';
      },
    });
    await approved.agent.run('go');
    expect(asked).toEqual(['c1']);
    expect(approved.ran).toEqual(['x']);
    await approved.system.dispose();

    // In default mode an exec tool asks; the hook's allow runs it without asking.
    const allowed = await hookedAgent([{ toolCalls: [echoCall('c1', 'x')] }, { text: 'ok' }], {
      permissionMode: 'default',
      hooks: { preTool: [() => ({ decision: 'allow' })] },
      approve: async () => {
        throw new Error('must not be asked');
      },
    });
    await allowed.agent.run('go');
    expect(allowed.ran).toEqual(['x']);
    await allowed.system.dispose();
  });

  it('a rewritten input is checked against the tool schema again', async () => {
    const { agent, system, ran } = await hookedAgent([{ toolCalls: [echoCall('c1', 'x')] }, { text: 'ok' }], {
      hooks: { preTool: [() => ({ input: { text: 5 } })] },
    });
    await agent.run('go');
    expect(ran).toEqual([]);
    expect(results(agent.log())[0]).toMatch(/^c1 error Invalid arguments for echo/);
    await system.dispose();
  });
});

describe('postTool hooks (in process)', () => {
  it('replace and annotate the result the model reads, in order; the log holds the final text', async () => {
    const { agent, system, model } = await hookedAgent(
      [{ toolCalls: [echoCall('c1', 'x')] }, { text: 'ok' }],
      {
        hooks: {
          postTool: [
            ({ toolResponse }) => ({ content: `[${toolResponse}]` }),
            () => undefined,
            () => ({ additionalContext: 'checked by a hook' }),
          ],
        },
      },
    );
    await agent.run('go');
    expect(results(agent.log())).toEqual(['c1 ok [echo: x]\n\nchecked by a hook']);
    expect(hookTrail(agent.log())).toEqual([
      'postTool postTool[0] modify',
      'postTool postTool[1] pass',
      'postTool postTool[2] modify',
    ]);
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({ content: '[echo: x]\n\nchecked by a hook' });
    await system.dispose();
  });

  it('a failed postTool hook is no opinion: the result stands, the log says why', async () => {
    const { agent, system } = await hookedAgent([{ toolCalls: [echoCall('c1', 'x')] }, { text: 'ok' }], {
      hooks: {
        postTool: [
          {
            name: 'broken',
            run: () => {
              throw new Error('nope');
            },
          },
        ],
      },
    });
    await agent.run('go');
    expect(results(agent.log())).toEqual(['c1 ok echo: x']);
    expect(hookTrail(agent.log())).toEqual(['postTool broken error: the hook threw: nope']);
    await system.dispose();
  });
});

describe('userMessage hooks (in process)', () => {
  it('rewrite the message the model reads', async () => {
    const { agent, system, model } = await hookedAgent([{ text: 'ok' }], {
      hooks: {
        userMessage: [
          ({ message }) => ({ message: message.replace('secret', '[redacted]') }),
          () => ({ additionalContext: 'be brief' }),
        ],
      },
    });
    await agent.run('my secret plan');
    expect(model.requests[0]!.messages).toEqual([
      { role: 'user', content: 'my [redacted] plan\n\nbe brief' },
    ]);
    expect(hookTrail(agent.log())).toEqual([
      'userMessage userMessage[0] modify',
      'userMessage userMessage[1] modify',
    ]);
    await system.dispose();
  });

  it('block the message: the turn ends blocked, the model is never asked', async () => {
    const { agent, system, model } = await hookedAgent([{ text: 'never' }], {
      hooks: { userMessage: [() => ({ decision: 'block', reason: 'no prompts about that' })] },
    });
    const result = await agent.run('forbidden');
    expect(result.reason).toBe('blocked');
    expect(model.requests).toEqual([]);
    const end = agent.log().find((event) => event.type === 'turn.end');
    expect(end?.data).toMatchObject({ reason: 'blocked', vetoReason: 'no prompts about that' });
    expect(agent.log().filter((event) => event.type === 'user.message')).toEqual([]);
    await system.dispose();
  });
});

describe('stop hooks (in process)', () => {
  it('refuse once with a message that starts another step, then allow', async () => {
    const told: Array<{ text: string; refusals: number }> = [];
    const { agent, system, model } = await hookedAgent([{ text: 'first' }, { text: 'second' }], {
      hooks: {
        stop: [
          ({ text, refusals }) => {
            told.push({ text, refusals });
            return refusals === 0 ? { decision: 'block', reason: 'Run the tests first.' } : undefined;
          },
        ],
      },
    });
    const result = await agent.run('go');
    expect(result).toMatchObject({ reason: 'completed', text: 'second' });
    expect(told).toEqual([
      { text: 'first', refusals: 0 },
      { text: 'second', refusals: 1 },
    ]);
    expect(model.requests[1]!.messages.at(-1)).toEqual({ role: 'user', content: 'Run the tests first.' });
    expect(hookTrail(agent.log())).toEqual(['stop stop[0] block: Run the tests first.', 'stop stop[0] pass']);
    await system.dispose();
  });

  it(`is bounded: after ${maxStopRefusals} refusals the turn ends without asking again`, async () => {
    let asked = 0;
    const steps = Array.from({ length: maxStopRefusals + 1 }, (_, index) => ({ text: `answer ${index}` }));
    const { agent, system, model } = await hookedAgent(steps, {
      hooks: {
        stop: [
          () => {
            asked++;
            return { decision: 'block', reason: 'again' };
          },
        ],
      },
    });
    const result = await agent.run('go');
    expect(result.reason).toBe('completed');
    expect(asked).toBe(maxStopRefusals);
    expect(model.requests).toHaveLength(maxStopRefusals + 1);
    await system.dispose();
  });
});
