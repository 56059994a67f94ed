import type { ResponseCreateParamsStreaming, ResponseInputItem } from 'openai/resources/responses/responses';
import { type OpenAIContext, promptCacheFields } from './openai-chat.ts';
import { type OutputItem, providerName, ResponsesStreamState } from './openai-responses-stream.ts';
import { isStrictSchema, outputFormatName } from './output-format.ts';
import { redactProviderError } from './secrets.ts';
import { errorEvent, finishEvents, stringifyToolInput } from './sse-common.ts';
import type { ModelEvent, ModelMessage, ModelRequest, ProviderPart, ToolCallRequest } from './types.ts';

/** Streams one request through the Responses API. Never throws: failure is the last event. */
export async function* streamResponses(
  context: OpenAIContext,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncGenerator<ModelEvent> {
  const state = new ResponsesStreamState();
  try {
    const params = toResponsesParams(request, context);
    const events = await context.client().responses.create(params, { signal, maxRetries: 0 });
    for await (const event of events) {
      yield* state.handle(event);
      if (state.failure) {
        yield { type: 'error', error: redactProviderError(state.failure, context.secrets()) };
        return;
      }
    }
  } catch (error) {
    yield errorEvent(error, { signal, clock: context.clock, secrets: context.secrets() });
    return;
  }
  if (!signal.aborted) yield* state.finish();
  yield* finishEvents({ signal, stopReason: state.stopReason, usage: state.usage });
}

/** The Responses API request for a provider-neutral request. Exported for tests of the mapping. */
export function toResponsesParams(
  request: ModelRequest,
  context: Pick<OpenAIContext, 'model' | 'maxTokens' | 'reasoning' | 'cache'>,
): ResponseCreateParamsStreaming {
  return {
    model: context.model,
    stream: true,
    // Stateless: the log is the conversation, so nothing is kept on the vendor's side.
    store: false,
    ...(request.system !== '' ? { instructions: request.system } : {}),
    input: toInput(request.messages),
    max_output_tokens: context.maxTokens,
    ...promptCacheFields(request, context.cache),
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            type: 'function' as const,
            name: tool.name,
            description: tool.description,
            parameters: tool.inputSchema,
            strict: false,
          })),
        }
      : {}),
    ...(context.reasoning
      ? { reasoning: context.reasoning, include: ['reasoning.encrypted_content' as const] }
      : {}),
    // A typed turn's format as the Responses API's structured outputs.
    ...(request.output
      ? {
          text: {
            format: {
              type: 'json_schema' as const,
              name: outputFormatName,
              schema: request.output.schema,
              strict: isStrictSchema(request.output.schema),
            },
          },
        }
      : {}),
  };
}

function toInput(messages: readonly ModelMessage[]): ResponseInputItem[] {
  // A custom tool's result goes back as `custom_tool_call_output`, so the ids of such calls are remembered.
  const customCalls = new Set<string>();
  return messages.flatMap((message): ResponseInputItem[] => {
    if (message.role === 'user') return [{ role: 'user', content: message.content }];
    if (message.role === 'tool') {
      const type = customCalls.has(message.callId) ? 'custom_tool_call_output' : 'function_call_output';
      return [{ type, call_id: message.callId, output: message.content }];
    }
    const parts = (message.providerParts ?? []).filter((part) => part.provider === providerName);
    for (const part of parts) {
      const item = part.data as OutputItem;
      if (item.type === 'custom_tool_call') customCalls.add(String(item.call_id));
    }
    return parts.some((part) => part.type !== 'reasoning')
      ? orderedItems(message, parts)
      : plainItems(message, parts);
  });
}

function plainItems(message: Extract<ModelMessage, { role: 'assistant' }>, parts: readonly ProviderPart[]) {
  // Reasoning items go back verbatim, before the output they led to.
  const items: ResponseInputItem[] = parts.map((part) => part.data as ResponseInputItem);
  if (message.text !== '') items.push({ role: 'assistant', content: message.text });
  for (const call of message.toolCalls) items.push(functionCall(call));
  return items;
}

/**
 * A response the adapter logged item for item: the items go back verbatim and in their order (messages with
 * their phase and citations, server tool calls, reasoning), tool calls with the arguments the log holds. An
 * MCP approval request is answered at once with a refusal: the runtime runs no server-side MCP tools and
 * has nobody to ask about them, and an unanswered request would stall the conversation.
 */
function orderedItems(message: Extract<ModelMessage, { role: 'assistant' }>, parts: readonly ProviderPart[]) {
  const calls = new Map(message.toolCalls.map((call) => [call.id, call]));
  const items: ResponseInputItem[] = [];
  for (const part of parts) {
    const item = part.data as OutputItem;
    const call = calls.get(String(item.call_id));
    if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      if (!call) continue;
      calls.delete(call.id);
      const logged =
        item.type === 'function_call'
          ? { arguments: stringifyToolInput(call.input) }
          : { input: typeof call.input === 'string' ? call.input : stringifyToolInput(call.input) };
      items.push({ ...item, ...logged } as unknown as ResponseInputItem);
      continue;
    }
    items.push(item as unknown as ResponseInputItem);
    if (item.type === 'mcp_approval_request') {
      items.push({
        type: 'mcp_approval_response',
        approval_request_id: String(item.id),
        approve: false,
        reason: 'agentchart runs no server-side MCP tools and cannot approve them',
      });
    }
  }
  for (const call of calls.values()) items.push(functionCall(call));
  return items;
}

function functionCall(call: ToolCallRequest): ResponseInputItem {
  return {
    type: 'function_call',
    call_id: call.id,
    name: call.name,
    arguments: stringifyToolInput(call.input),
  };
}
