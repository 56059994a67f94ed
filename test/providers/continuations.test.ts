// What the next request carries after a recorded response the runtime cannot finish by itself: the real
// runtime runs an agent against a local server that replays recorded vendor streams, and the request that
// follows must hold the vendor's content verbatim (Anthropic server tools after `pause_turn`) and answer
// every call the runtime could not run (a Responses custom tool call, an MCP approval request).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropic } from '../../src/providers/anthropic.ts';
import { openai } from '../../src/providers/openai.ts';
import type { Provider } from '../../src/providers/types.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { expectAnthropic } from '../support/recorded/expect-anthropic.ts';
import { loadRecordedFixtures, payloads, replayAction } from '../support/recorded/fixtures.ts';
import { type FakeServer, startFakeServer } from '../support/wire/fake-server.ts';

type Entry = Record<string, unknown>;
const fixtures = new Map(loadRecordedFixtures().map((fixture) => [fixture.name, fixture]));

function response(name: string) {
  const fixture = fixtures.get(name);
  if (!fixture) throw new Error(`no recorded stream ${name}`);
  return fixture.responses[0]!;
}

let server: FakeServer;
beforeEach(async () => {
  server = await startFakeServer();
});
afterEach(async () => {
  await server.close();
});

async function run(
  provider: Provider,
  ...streams: string[]
): Promise<{ log: readonly LogEvent[]; reason: string }> {
  for (const name of streams) server.enqueue(replayAction(response(name)));
  let counter = 0;
  const system = createAgentSystem({
    model: provider,
    ids: () => `id${++counter}`,
    permissionMode: 'bypass',
    projectInstructions: false,
  });
  const agent = await system.createAgent({ id: 'agent-1' });
  const result = await agent.run('Go.');
  const log = agent.log();
  await system.dispose();
  return { log, reason: result.reason };
}

const requestBody = (index: number) => server.requests[index]!.body as Entry;

describe('continuing after a recorded response', () => {
  it('Anthropic pause_turn: the next request sends the paused message’s blocks back verbatim, in order', async () => {
    // The blocks go back as logged; the cache markers have their own test (prompt-cache.test.ts).
    const provider = anthropic({
      model: 'claude-recorded',
      apiKey: 'test-key',
      baseURL: server.url,
      cacheControl: false,
    });
    const { log, reason } = await run(
      provider,
      'anthropic/pause-turn.sse',
      'anthropic/pause-turn-continued.sse',
    );
    expect(reason).toBe('completed');
    expect(server.requests).toHaveLength(2);
    // The reference reading of the paused response: every block as the whole message holds it.
    const paused = expectAnthropic(payloads(response('anthropic/pause-turn.sse')));
    const blocks = paused.providerParts
      .map((part) => part.data as Entry)
      .filter((block) => block.type !== 'text' || block.text !== '');
    const messages = requestBody(1).messages as Entry[];
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(messages[1]!.content).toEqual(blocks);
    expect(blocks.filter((block) => block.type === 'server_tool_use').length).toBeGreaterThan(5);
    // Logged with the message, so a resumed session sends the same.
    const logged = log.filter((event) => event.type === 'assistant.message').map((event) => event.data);
    expect(logged.map((data) => data.stopReason)).toEqual(['pause_turn', 'end_turn']);
    expect(logged[0]!.providerParts).toEqual(paused.providerParts);
  });

  it('Anthropic web search: citations are logged on the assistant message', async () => {
    const provider = anthropic({ model: 'claude-recorded', apiKey: 'test-key', baseURL: server.url });
    const { log } = await run(provider, 'anthropic/web-search-citations.jsonl');
    const expected = expectAnthropic(payloads(response('anthropic/web-search-citations.jsonl')));
    const message = log.find((event) => event.type === 'assistant.message')!.data;
    expect(expected.citations.length).toBeGreaterThan(0);
    expect(message.citations).toEqual(expected.citations);
    expect(message.text).toBe(expected.text);
  });

  it('Responses custom tool call: logged, answered as custom_tool_call_output, sent back with its item', async () => {
    const provider = openai({
      model: 'recorded',
      apiKey: 'test-key',
      baseURL: `${server.url}/v1`,
      api: 'responses',
    });
    const { log, reason } = await run(
      provider,
      'openai-responses/custom-tool-call.jsonl',
      'openai-responses/text.sse',
    );
    expect(reason).toBe('completed');
    const call = log.find((event) => event.type === 'tool.call')!.data as Entry;
    const result = log.find((event) => event.type === 'tool.result')!.data as Entry;
    // The runtime has no such tool: the call still ends with exactly one result, which the model reads.
    expect(result).toMatchObject({ callId: call.callId, outcome: 'error' });
    const input = requestBody(1).input as Entry[];
    const item = input.find((entry) => entry.type === 'custom_tool_call')!;
    expect(item).toMatchObject({ call_id: call.callId, name: call.name, input: call.input });
    expect(input.filter((entry) => entry.type === 'custom_tool_call_output')).toEqual([
      { type: 'custom_tool_call_output', call_id: call.callId, output: result.content },
    ]);
    expect(input.some((entry) => entry.type === 'function_call_output')).toBe(false);
  });

  it('Responses MCP approval request: logged, and declined on the next request', async () => {
    const provider = openai({
      model: 'recorded',
      apiKey: 'test-key',
      baseURL: `${server.url}/v1`,
      api: 'responses',
    });
    const { log, reason } = await run(
      provider,
      'openai-responses/mcp-approval-request.jsonl',
      'openai-responses/text.sse',
    );
    expect(reason).toBe('completed');
    const first = log.find((event) => event.type === 'assistant.message')!.data;
    const parts = first.providerParts as { type: string; data: Entry }[];
    expect(parts.map((part) => part.type)).toEqual(['mcp_list_tools', 'reasoning', 'mcp_approval_request']);
    expect(first.stopReason).toBe('pause_turn');
    const input = requestBody(1).input as Entry[];
    const request = parts[2]!.data;
    expect(input.slice(1).map((entry) => entry.type)).toEqual([
      'mcp_list_tools',
      'reasoning',
      'mcp_approval_request',
      'mcp_approval_response',
    ]);
    expect(input.at(-1)).toMatchObject({ approval_request_id: request.id, approve: false });
  });
});
