// The spans of what happens around a tool call and between turns: a hook's decision, the wait for an
// approval (under the call's `execute_tool` span), and a compaction (under the turn that ran it).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scripted } from '../../src/providers/scripted.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { defineTool } from '../../src/tools/define-tool.ts';
import { spanTree } from '../support/otlp-receiver.ts';
import { startTracedBackend, type TracedBackend } from '../support/traced-provider.ts';

let backend: TracedBackend;

beforeEach(async () => {
  backend = await startTracedBackend();
});

afterEach(async () => {
  await backend.close();
});

const echo = defineTool({
  name: 'echo',
  description: 'Repeat the text.',
  access: 'none',
  input: z.object({ text: z.string() }),
  run: async ({ text }) => `echo: ${text}`,
});

describe('OpenTelemetry spans of hooks, approvals and compactions', () => {
  it('shows the hook and the approval wait under the tool call, and the compaction in its turn', async () => {
    const system = createAgentSystem({
      model: scripted([
        { toolCalls: [{ name: 'echo', input: { text: 'hi' } }] },
        { text: 'Echoed.' },
        { text: 'Second.' },
        { text: 'Summary of the first turn.' },
      ]),
      tools: [echo],
      hooks: { preTool: [() => ({ decision: 'ask', reason: 'check first' })] },
      approve: async () => 'allow',
      compaction: { keepRecentTurns: 1 },
      telemetry: { tracerProvider: backend.provider },
    });
    const agent = await system.createAgent();
    await agent.run('Echo hi.');
    await agent.run('Again.');
    expect((await agent.compact()).compacted).toBe(true);
    await system.dispose();
    await backend.provider.forceFlush();
    const { spans } = backend.receiver;
    const answer: [string, []] = ['chat scripted', []];
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
                  answer,
                  [
                    'execute_tool echo',
                    [
                      ['hook preTool', []],
                      ['approval', []],
                    ],
                  ],
                ],
              ],
              ['step', [answer]],
            ],
          ],
          ['turn', [['step', [answer]]]],
          ['turn', [['compaction', []]]],
        ],
      ],
    ]);
    const attributesOf = (name: string) => spans.find((span) => span.name === name)?.attributes;
    expect(attributesOf('hook preTool')).toEqual({
      'agentchart.hook.point': 'preTool',
      'agentchart.hook.name': 'preTool[0]',
      'agentchart.hook.outcome': 'ask',
    });
    expect(attributesOf('approval')).toEqual({
      'gen_ai.tool.call.id': expect.any(String),
      'agentchart.approval.outcome': 'allow',
      'agentchart.approval.by': 'host',
    });
    expect(attributesOf('compaction')).toEqual({
      'agentchart.compaction.trigger': 'manual',
      'agentchart.compaction.tokens_before': expect.any(Number),
      'gen_ai.usage.input_tokens': expect.any(Number),
      'gen_ai.usage.output_tokens': expect.any(Number),
    });
  });

  it('marks a model call that failed for good, and its turn, as errors', async () => {
    const system = createAgentSystem({
      model: scripted([{ error: { kind: 'auth', message: 'bad key' } }]),
      telemetry: { tracerProvider: backend.provider },
    });
    const agent = await system.createAgent();
    expect((await agent.run('Hi.')).reason).toBe('model_error');
    await system.dispose();
    await backend.provider.forceFlush();
    const failed = backend.receiver.spans
      .filter((span) => span.status.code === 2)
      .map((span) => [span.name, span.attributes['error.type'], span.status.message])
      // Each span is posted on its own: they may arrive in any order.
      .sort(([a], [b]) => String(a).localeCompare(String(b)));
    // STATUS_CODE_ERROR is 2 in OTLP.
    expect(failed).toEqual([
      ['chat scripted', 'auth', 'bad key'],
      ['turn', 'auth', 'bad key'],
    ]);
  });
});
