import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { anthropic } from '../../src/providers/anthropic.ts';
import { openai } from '../../src/providers/openai.ts';
import type { Provider } from '../../src/providers/types.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { fileStore } from '../../src/session/file-store.ts';
import { defineTool } from '../../src/tools/define-tool.ts';
import { fieldsOf } from '../support/log-fields.ts';
import { startAnthropicServer } from '../support/wire/anthropic-server.ts';
import type { FakeServer } from '../support/wire/fake-server.ts';
import { startOpenAIChatServer } from '../support/wire/openai-chat-server.ts';
import { startOpenAIResponsesServer } from '../support/wire/openai-responses-server.ts';
import type { WireReply } from '../support/wire/reply.ts';

const echo = defineTool({
  name: 'echo',
  description: 'Repeat the text.',
  access: 'none',
  concurrencySafe: true,
  input: z.object({ text: z.string() }),
  run: async ({ text }) => `echo: ${text}`,
});

type Backend = {
  server: FakeServer & { reply(reply: WireReply): void };
  provider: Provider;
  /** The tool results a recorded request carried back, as [call id, content] pairs. */
  toolResults(body: Record<string, unknown>): [unknown, unknown][];
};

type Entry = Record<string, unknown>;
const entries = (body: Entry, key: string) => (body[key] ?? []) as Entry[];

const backends: Record<string, () => Promise<Backend>> = {
  anthropic: async () => {
    const server = await startAnthropicServer();
    return {
      server,
      provider: anthropic({ model: 'claude-test', apiKey: 'k', baseURL: server.url }),
      toolResults: (body) =>
        entries(body, 'messages')
          .flatMap((message) => (Array.isArray(message.content) ? (message.content as Entry[]) : []))
          .filter((block) => block.type === 'tool_result')
          .map((block) => [block.tool_use_id, block.content]),
    };
  },
  'openai chat completions': async () => {
    const server = await startOpenAIChatServer();
    return {
      server,
      provider: openai({ model: 'gpt-test', apiKey: 'k', baseURL: `${server.url}/v1` }),
      toolResults: (body) =>
        entries(body, 'messages')
          .filter((message) => message.role === 'tool')
          .map((message) => [message.tool_call_id, message.content]),
    };
  },
  'openai responses': async () => {
    const server = await startOpenAIResponsesServer();
    const provider = openai({
      model: 'gpt-test',
      apiKey: 'k',
      baseURL: `${server.url}/v1`,
      api: 'responses',
    });
    return {
      server,
      provider,
      toolResults: (body) =>
        entries(body, 'input')
          .filter((item) => item.type === 'function_call_output')
          .map((item) => [item.call_id, item.output]),
    };
  },
};

let open: FakeServer | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe.each(Object.keys(backends))('a whole run over the wire: %s', (name) => {
  it('retries after a 529, runs two tool calls and completes', async () => {
    const { server, provider, toolResults } = await backends[name]!();
    open = server;
    // A tiny retry-after keeps the real clock's wait short; the step machine does the retrying.
    server.reply({ httpError: { status: 529, message: 'Overloaded', headers: { 'retry-after-ms': '1' } } });
    server.reply({
      turn: {
        text: ['Echoing ', 'twice.'],
        toolCalls: [
          { id: 'call_a', name: 'echo', argumentPieces: ['{"te', 'xt": "', 'one"}'] },
          { id: 'call_b', name: 'echo', argumentPieces: ['{"text"', ': "two"}'] },
        ],
      },
    });
    server.reply({ turn: { text: ['Done', '.'] } });
    let counter = 0;
    const system = createAgentSystem({
      model: provider,
      tools: [echo],
      ids: () => `id${++counter}`,
      permissionMode: 'bypass',
      projectInstructions: false,
    });
    const agent = await system.createAgent({ id: 'agent-1', instructions: 'Test agent.' });
    const result = await agent.run('Echo one and two.');
    expect({ reason: result.reason, text: result.text }).toEqual({ reason: 'completed', text: 'Done.' });
    expect(agent.log().map((event) => event.type)).toEqual([
      'session.start',
      'inbox.queued',
      'turn.start',
      'inbox.claimed',
      'user.message',
      'step.start',
      'assistant.attempt',
      'assistant.message',
      'tool.call',
      'tool.call',
      'approval.decided',
      'approval.decided',
      'tool.started',
      'tool.started',
      'tool.result',
      'tool.result',
      'step.end',
      'step.start',
      'assistant.message',
      'step.end',
      'turn.end',
    ]);
    const attempt = agent.log().find((event) => event.type === 'assistant.attempt');
    expect(attempt?.data).toMatchObject({
      attempt: 1,
      retryInMs: 1,
      error: { kind: 'overloaded', status: 529 },
    });
    const calls = agent
      .log()
      .filter((event) => event.type === 'tool.call')
      .map((event) => event.data);
    expect(calls).toEqual([
      { callId: 'call_a', name: 'echo', input: { text: 'one' } },
      { callId: 'call_b', name: 'echo', input: { text: 'two' } },
    ]);
    const results = fieldsOf(agent.log(), 'tool.result', 'callId', 'outcome', 'content');
    expect(results).toEqual([
      ['call_a', 'ok', 'echo: one'],
      ['call_b', 'ok', 'echo: two'],
    ]);
    // One failed attempt, then the step with tools, then the final answer with both results paired by id.
    expect(server.requests.length).toBe(3);
    expect(toolResults(server.requests[2]!.body)).toEqual([
      ['call_a', 'echo: one'],
      ['call_b', 'echo: two'],
    ]);
    await agent.dispose();
    await system.dispose();
  });

  it('a server that leaves the prompt count out: usage counts 0, and the session file loads and resumes', async () => {
    const { server, provider } = await backends[name]!();
    open = server;
    server.reply({ turn: { text: ['No counts.'], rawCounts: { output: 3 } } });
    server.reply({ turn: { text: ['Still none.'], rawCounts: {} } });
    const dir = await mkdtemp(join(tmpdir(), 'agentchart-usage-'));
    const system = () =>
      createAgentSystem({
        model: provider,
        store: fileStore(dir),
        permissionMode: 'bypass',
        projectInstructions: false,
      });
    try {
      const first = system();
      const result = await (await first.createAgent({ id: 'counts' })).run('Count.');
      await first.dispose();
      const { events } = await fileStore(dir).load('counts');
      const usage = { inputTokens: 0, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 };
      expect({
        usage: result.usage,
        logged: events.filter((event) => event.type === 'assistant.message').map((event) => event.data),
      }).toEqual({ usage, logged: [{ text: 'No counts.', toolCalls: [], usage, stopReason: 'end_turn' }] });
      const second = system();
      const resumed = await second.resumeAgent('counts');
      expect(await resumed.run('Again.')).toMatchObject({ reason: 'completed', text: 'Still none.' });
      await second.dispose();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
