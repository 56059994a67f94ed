import type { ModelRequest, ProviderPart } from '../../../src/providers/types.ts';

/**
 * A conversation that exercises every part of the projection: system prompt, user text, an assistant
 * message with text and two tool calls (one with unparseable arguments), two tool results (one an
 * error), and a follow-up user message.
 */
export function sampleConversation(providerParts: ProviderPart[] = []): ModelRequest {
  return {
    system: 'You are a careful coding agent.',
    tools: [
      {
        name: 'read_file',
        description: 'Read a file.',
        inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      },
      { name: 'list_dir', description: 'List a folder.', inputSchema: { type: 'object', properties: {} } },
    ],
    messages: [
      { role: 'user', content: 'Read a.ts please.' },
      {
        role: 'assistant',
        text: 'Reading it.',
        toolCalls: [
          { id: 'call_1', name: 'read_file', input: { path: 'a.ts' } },
          { id: 'call_2', name: 'list_dir', input: '{"path": ' },
        ],
        providerParts,
      },
      { role: 'tool', callId: 'call_1', name: 'read_file', content: 'export {}', isError: false },
      { role: 'tool', callId: 'call_2', name: 'list_dir', content: 'invalid JSON arguments', isError: true },
      { role: 'user', content: 'Thanks. Now summarise.' },
    ],
  };
}
