// OpenTelemetry traces of a real session, as a backend receives them: the real SDK's tracer provider and
// OTLP/HTTP exporter post to a receiver on 127.0.0.1, and the Anthropic SDK talks to a local wire server
// that refuses the first request (a retried model call). The parent delegates to a subagent (`task`).
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropic } from '../../src/providers/anthropic.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { taskTool } from '../../src/tools/task.ts';
import {
  type OtlpReceiver,
  type ReceivedSpan,
  spanTree,
  startOtlpReceiver,
} from '../support/otlp-receiver.ts';
import { type AnthropicServer, startAnthropicServer } from '../support/wire/anthropic-server.ts';

let receiver: OtlpReceiver;
let wire: AnthropicServer;
let provider: TracerProvider;

beforeEach(async () => {
  receiver = await startOtlpReceiver();
  wire = await startAnthropicServer();
  const exporter = new OTLPTraceExporter({ url: `${receiver.url}/v1/traces` });
  provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
});

afterEach(async () => {
  await provider.shutdown();
  await wire.close();
  await receiver.close();
});

const taskCall = {
  id: 'call-task',
  name: 'task',
  argumentPieces: [JSON.stringify({ description: 'look', prompt: 'Look around.' })],
};

/** Refused once (529, retryable), then a `task` call; the child answers; then the parent's answer. */
function scriptWire(): void {
  wire.reply({ httpError: { status: 529, message: 'overloaded' } });
  wire.reply({ turn: { toolCalls: [taskCall], stop: 'tool_use', usage: { input: 12, output: 5 } } });
  wire.reply({ turn: { text: ['Seen it.'], stop: 'end_turn', usage: { input: 7, output: 3 } } });
  wire.reply({
    turn: { text: ['All done.'], stop: 'end_turn', usage: { input: 20, output: 4, cacheRead: 6 } },
  });
}

async function runSession(recordContent?: boolean): Promise<ReceivedSpan[]> {
  scriptWire();
  const system = createAgentSystem({
    model: anthropic({ model: 'claude-test', apiKey: 'k', baseURL: wire.url }),
    tools: [taskTool()],
    retry: { baseDelayMs: 1, maxDelayMs: 1 },
    telemetry: { tracerProvider: provider, ...(recordContent !== undefined ? { recordContent } : {}) },
  });
  const agent = await system.createAgent({ id: 'parent' });
  const result = await agent.run('Delegate a look.');
  expect(result.reason).toBe('completed');
  await system.dispose();
  await provider.forceFlush();
  return receiver.spans;
}

const named = (spans: ReceivedSpan[], name: string) => spans.filter((span) => span.name === name);

describe('OpenTelemetry traces', () => {
  it('a session with a subagent and a retried model call is one span tree', async () => {
    const spans = await runSession();
    expect(spanTree(spans)).toEqual([
      [
        'invoke_agent agentchart',
        [
          [
            'turn',
            [
              [
                'step',
                [
                  ['chat claude-test', []],
                  [
                    'execute_tool task',
                    [['invoke_agent agentchart', [['turn', [['step', [['chat claude-test', []]]]]]]]],
                  ],
                ],
              ],
              ['step', [['chat claude-test', []]]],
            ],
          ],
        ],
      ],
    ]);
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
  });

  it('gives each span the GenAI attributes: agent, model call with usage and finish reason, tool call', async () => {
    const spans = await runSession();
    const [parent, child] = named(spans, 'invoke_agent agentchart').sort((a, b) =>
      a.parentSpanId === '' ? -1 : b.parentSpanId === '' ? 1 : 0,
    );
    expect(parent?.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': 'parent',
      'gen_ai.agent.name': 'agentchart',
      'gen_ai.conversation.id': 'parent',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-test',
    });
    expect(child?.attributes['gen_ai.agent.id']).not.toBe('parent');
    const chats = named(spans, 'chat claude-test');
    // SpanKind.CLIENT is 3 in OTLP (SPAN_KIND_CLIENT).
    expect(chats.map((chat) => chat.kind)).toEqual([3, 3, 3]);
    const retried = chats.find((chat) => chat.events.length > 0)!;
    expect(retried.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-test',
      'gen_ai.conversation.id': 'parent',
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.response.finish_reasons': ['tool_use'],
    });
    expect(retried.events).toEqual([
      {
        name: 'agentchart.attempt.failed',
        attributes: {
          'error.type': 'overloaded',
          'agentchart.attempt': 1,
          'agentchart.retry_in_ms': expect.any(Number),
          'http.response.status_code': 529,
        },
      },
    ]);
    expect(retried.status.code ?? 0).toBe(0);
    const last = chats.find((chat) => chat.attributes['gen_ai.usage.cache_read.input_tokens'] !== undefined);
    expect(last?.attributes['gen_ai.usage.input_tokens']).toBe(26);
    const [tool] = named(spans, 'execute_tool task');
    expect(tool?.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'task',
      'gen_ai.tool.call.id': 'call-task',
      'gen_ai.tool.type': 'function',
      'agentchart.tool.outcome': 'ok',
    });
    const contentKeys = spans.flatMap((span) =>
      Object.keys(span.attributes).filter((key) => key.endsWith('messages') || key.includes('arguments')),
    );
    expect(contentKeys).toEqual([]);
  });

  it('records message content only when the host opts in', async () => {
    const spans = await runSession(true);
    const [tool] = named(spans, 'execute_tool task');
    expect(tool?.attributes['gen_ai.tool.call.arguments']).toBe(
      JSON.stringify({ description: 'look', prompt: 'Look around.' }),
    );
    expect(tool?.attributes['gen_ai.tool.call.result']).toEqual(expect.stringContaining('Seen it.'));
    const turns = named(spans, 'turn').filter(
      (turn) => turn.attributes['gen_ai.input.messages'] !== undefined,
    );
    expect(turns.map((turn) => JSON.parse(String(turn.attributes['gen_ai.input.messages'])))).toEqual(
      expect.arrayContaining([[{ role: 'user', parts: [{ type: 'text', content: 'Delegate a look.' }] }]]),
    );
    const answers = named(spans, 'chat claude-test').map((chat) => chat.attributes['gen_ai.output.messages']);
    expect(answers).toContain(
      JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'All done.' }] }]),
    );
  });
});
