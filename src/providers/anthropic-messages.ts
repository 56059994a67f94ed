// The conversation of a provider-neutral request as Messages API messages: tool results grouped after their
// assistant turn, thinking blocks sent back verbatim and first, and a message the adapter logged block for
// block (server tools, citations, compaction) sent back in its order.
import type {
  ContentBlockParam,
  MessageParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { type ContentBlock, providerName } from './anthropic-stream.ts';
import type { ModelMessage, ProviderPart } from './types.ts';

export function toAnthropicMessages(messages: readonly ModelMessage[]): MessageParam[] {
  const result: MessageParam[] = [];
  for (const message of messages) {
    const previous = result.at(-1);
    if (message.role === 'tool') {
      const block: ToolResultBlockParam = {
        type: 'tool_result',
        tool_use_id: message.callId,
        content: message.content,
        ...(message.isError ? { is_error: true } : {}),
      };
      // Results of one assistant turn travel together in one user message.
      if (
        previous?.role === 'user' &&
        Array.isArray(previous.content) &&
        endsWithToolResult(previous.content)
      ) {
        previous.content.push(block);
      } else {
        result.push({ role: 'user', content: [block] });
      }
    } else if (message.role === 'user') {
      if (previous?.role === 'user' && Array.isArray(previous.content)) {
        previous.content.push({ type: 'text', text: message.content });
      } else {
        result.push({ role: 'user', content: [{ type: 'text', text: message.content }] });
      }
    } else {
      const content = assistantContent(message);
      // The API refuses an empty assistant turn (an interrupted message with nothing in it). A message that
      // continues a paused one (`pause_turn`) joins it: together they are one turn of the assistant.
      if (content.length === 0) continue;
      if (previous?.role === 'assistant' && Array.isArray(previous.content))
        previous.content.push(...content);
      else result.push({ role: 'assistant', content });
    }
  }
  return result;
}

function endsWithToolResult(content: ContentBlockParam[]): boolean {
  return content.at(-1)?.type === 'tool_result';
}

function assistantContent(message: Extract<ModelMessage, { role: 'assistant' }>): ContentBlockParam[] {
  const parts = (message.providerParts ?? []).filter((part) => part.provider === providerName);
  if (parts.some((part) => part.type !== 'thinking' && part.type !== 'redacted_thinking')) {
    return orderedContent(message, parts);
  }
  const content: ContentBlockParam[] = [];
  for (const part of message.providerParts ?? []) {
    // Thinking blocks go back verbatim and first; parts of another vendor mean nothing here.
    if (part.provider === providerName && (part.type === 'thinking' || part.type === 'redacted_thinking')) {
      content.push(part.data as ContentBlockParam);
    }
  }
  if (message.text !== '') content.push({ type: 'text', text: message.text });
  for (const call of message.toolCalls) {
    content.push({ type: 'tool_use', id: call.id, name: call.name, input: objectInput(call.input) });
  }
  return content;
}

/**
 * A message the adapter logged block for block (server tools, citations, compaction): the blocks go back
 * verbatim and in their order, as the API requires to continue after `pause_turn`. Tool calls take their
 * input from the log (what the runtime ran), and empty text blocks, which the API refuses, are left out.
 */
function orderedContent(
  message: Extract<ModelMessage, { role: 'assistant' }>,
  parts: readonly ProviderPart[],
): ContentBlockParam[] {
  const calls = new Map(message.toolCalls.map((call) => [call.id, call]));
  const content: ContentBlockParam[] = [];
  for (const part of parts) {
    const block = part.data as ContentBlock;
    if (block.type === 'text' && block.text === '') continue;
    if (block.type !== 'tool_use') {
      content.push(block as unknown as ContentBlockParam);
      continue;
    }
    const call = calls.get(String(block.id));
    if (!call) continue;
    calls.delete(call.id);
    content.push({ ...block, input: objectInput(call.input) } as unknown as ContentBlockParam);
  }
  for (const call of calls.values()) {
    content.push({ type: 'tool_use', id: call.id, name: call.name, input: objectInput(call.input) });
  }
  return content;
}

function objectInput(input: unknown): object {
  return typeof input === 'object' && input !== null ? input : {};
}
