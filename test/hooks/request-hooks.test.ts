// `request` hooks: before a step's model request, the hooks may change its system prompt or narrow its
// tools. Their decisions are logged before the request, and the request is rebuilt from the log, so a
// replay sends the same bytes without running a hook.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgentSystem, defineTool } from '../../src/index.ts';
import { replaySession } from '../../src/replay/replay-session.ts';
import { assertSameLog } from '../../src/session/compare-logs.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { scripted } from '../../src/testing.ts';
import {
  counterIds,
  echoTool,
  expectCancelAbortsHook,
  hookedAgent,
  hookTrail,
  type ScriptSteps,
  steppingClock,
} from './hook-kit.ts';

const noteTool = defineTool({
  name: 'note',
  description: 'Take a note',
  access: 'read',
  input: z.object({ text: z.string() }),
  run: async ({ text }) => `noted: ${text}`,
});

const toolNames = (request: { tools: readonly { name: string }[] }) => request.tools.map((tool) => tool.name);

const typesBeforeRequest = (log: readonly LogEvent[]) =>
  log
    .filter((event) => ['step.start', 'hook.decided', 'assistant.message'].includes(event.type))
    .map((event) => event.type);

describe('request hooks', () => {
  it('change the system prompt and narrow the tools, in order, each seeing what the one before left', async () => {
    const told: unknown[] = [];
    const { agent, system, model } = await hookedAgent([{ text: 'one' }, { text: 'two' }], {
      tools: [echoTool(), noteTool],
      hooks: {
        request: [
          ({ system: prompt, tools, model: name, step }) => {
            told.push({ prompt, tools, name, step });
            return { system: 'Be brief.\nNo tables.', tools: ['note'] };
          },
          ({ system: prompt, tools }) => {
            told.push({ prompt, tools });
            return { additionalContext: 'Today is Tuesday.' };
          },
          () => undefined,
        ],
      },
    });
    await agent.run('go');
    await agent.run('again');
    expect(told[0]).toEqual({
      prompt: expect.any(String),
      tools: ['echo', 'note'],
      name: model.model,
      step: 1,
    });
    expect(told[1]).toEqual({ prompt: 'Be brief.\nNo tables.', tools: ['note'] });
    for (const request of model.requests) {
      expect(request.system).toBe('Be brief.\nNo tables.\n\nToday is Tuesday.');
      expect(toolNames(request)).toEqual(['note']);
    }
    expect(hookTrail(agent.log())).toEqual([
      'request request[0] modify',
      'request request[1] modify',
      'request request[2] pass',
      'request request[0] modify',
      'request request[1] modify',
      'request request[2] pass',
    ]);
    // Model-visible means logged: the decisions come between the step's start and its answer.
    expect(typesBeforeRequest(agent.log()).slice(0, 5)).toEqual([
      'step.start',
      'hook.decided',
      'hook.decided',
      'hook.decided',
      'assistant.message',
    ]);
    await system.dispose();
  });

  it('a block ends the waterfall; a tool that is not offered or a throw is no opinion', async () => {
    const { agent, system, model } = await hookedAgent([{ text: 'done' }], {
      hooks: {
        request: [
          () => ({ tools: ['shell'] }),
          () => {
            throw new Error('boom');
          },
          () => ({ decision: 'block', reason: 'enough', system: 'Short.' }),
          () => ({ system: 'never asked' }),
        ],
      },
    });
    await agent.run('go');
    expect(hookTrail(agent.log())).toEqual([
      'request request[0] invalid: the hook named tools this step does not offer: shell (offered: echo)',
      'request request[1] error: the hook threw: boom',
      'request request[2] block: enough',
    ]);
    expect(model.requests[0]?.system).toBe('Short.');
    expect(toolNames(model.requests[0]!)).toEqual(['echo']);
    await system.dispose();
  });

  it('a command hook changes the request with Claude-style JSON (updatedSystemPrompt, updatedTools)', async () => {
    const script = `node -e "const i=JSON.parse(require('fs').readFileSync(0,'utf8')); if (i.hook_event_name!=='Request') process.exit(1); process.stdout.write(JSON.stringify({ hookSpecificOutput: { updatedSystemPrompt: i.system_prompt + ' [' + i.model + ']', updatedTools: i.tools.filter((t) => t !== 'echo') } }))"`;
    const { agent, system, model } = await hookedAgent([{ text: 'ok' }], {
      tools: [echoTool(), noteTool],
      hooks: {
        request: [
          { type: 'command', command: script },
          { type: 'command', command: 'true' },
        ],
      },
    });
    await agent.run('go');
    expect(model.requests[0]?.system.endsWith(`. [${model.model}]`)).toBe(true);
    expect(toolNames(model.requests[0]!)).toEqual(['note']);
    expect(hookTrail(agent.log()).map((line) => line.split(' ').at(-1))).toEqual(['modify', 'pass']);
    await system.dispose();
  });

  it('send a step to another model the host named; an unknown name is invalid; a replay needs no model', async () => {
    const small = scripted([{ text: 'from small' }]);
    const told: unknown[] = [];
    const hooks = {
      request: [
        ({ model: name, models }: { model: string; models: string[] }) => {
          told.push({ name, models });
          return { model: 'huge' };
        },
        () => ({ model: 'small' }),
      ],
    };
    const { agent, system, model } = await hookedAgent([{ text: 'from main' }], { models: { small }, hooks });
    expect((await agent.run('go')).text).toBe('from small');
    expect(told).toEqual([{ name: model.model, models: ['small'] }]);
    expect(model.requests).toHaveLength(0);
    expect(small.requests).toHaveLength(1);
    expect(hookTrail(agent.log())).toEqual([
      `request request[0] invalid: the hook named a model the host did not give: huge (known: ${model.model}, small)`,
      'request request[1] modify',
    ]);
    const decided = agent.log().filter((event) => event.type === 'hook.decided');
    expect((decided[1]!.data as { model?: string }).model).toBe('small');
    await system.dispose();
    const recorded = [...agent.log()];
    const replayed = await replaySession(recorded, {
      setup: { tools: [echoTool()], hooks, models: { small } },
    });
    assertSameLog(recorded, replayed.events);
    expect(small.requests).toHaveLength(1);
  });

  it('a cancel while a request hook runs aborts it; no request is made and the turn ends canceled', () =>
    expectCancelAbortsHook('request'));

  it('a replay sends the same request bytes from the log, without running the hooks', async () => {
    const steps: ScriptSteps = [
      { toolCalls: [{ id: 'c1', name: 'echo', input: { text: 'hi' } }] },
      { text: 'done' },
    ];
    let runs = 0;
    const counted = () => {
      runs++;
      return { system: `Run ${runs}.`, tools: ['echo'] };
    };
    const { agent, system, model } = await hookedAgent(steps, {
      tools: [echoTool(), noteTool],
      hooks: { request: [counted] },
    });
    await agent.run('go');
    await system.dispose();
    expect(runs).toBe(2);
    const recorded = [...agent.log()];

    const replayed = await replaySession(recorded, {
      setup: { tools: [echoTool(), noteTool], hooks: { request: [counted] } },
    });
    assertSameLog(recorded, replayed.events);

    // The same system with the recording's decisions in place of the hooks: the model gets the same bytes.
    const again = scripted(steps);
    const replaying = createAgentSystem({
      model: again,
      tools: [echoTool(), noteTool],
      ids: counterIds(),
      clock: steppingClock(),
      projectInstructions: false,
      permissionMode: 'bypass',
      hooks: { request: [counted] },
      replay: { log: recorded },
    });
    const twin = await replaying.createAgent({ id: 'a' });
    await twin.run('go');
    await replaying.dispose();
    expect(runs).toBe(2);
    expect(again.requests.map((request) => JSON.stringify(request))).toEqual(
      model.requests.map((request) => JSON.stringify(request)),
    );
    expect(model.requests.map((request) => request.system)).toEqual(['Run 1.', 'Run 2.']);
  });
});
