import type {
  ResponseCreateParamsStreaming,
  ResponseInputItem,
  ResponseStreamEvent,
  ResponseUsage,
  Response as VendorResponse,
} from 'openai/resources/responses/responses';
import type { ProviderError } from '../errors/provider-error.ts';
import { classifyVendorError } from './classify-error.ts';
import type { OpenAIContext } from './openai-chat.ts';
import { redactProviderError } from './secrets.ts';
import { errorEvent, finishEvents, parseToolInput, stringifyToolInput, tokenCount } from './sse-common.ts';
import type { ModelEvent, ModelMessage, ModelRequest, ModelStopReason, Usage } from './types.ts';

const providerName = 'openai';

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
  yield* finishEvents({ signal, stopReason: state.stopReason, usage: state.usage });
}

/** The Responses API request for a provider-neutral request. Exported for tests of the mapping. */
export function toResponsesParams(
  request: ModelRequest,
  context: Pick<OpenAIContext, 'model' | 'maxTokens' | 'reasoning'>,
): ResponseCreateParamsStreaming {
  return {
    model: context.model,
    stream: true,
    // Stateless: the log is the conversation, so nothing is kept on the vendor's side.
    store: false,
    ...(request.system !== '' ? { instructions: request.system } : {}),
    input: request.messages.flatMap(toInputItems),
    max_output_tokens: context.maxTokens,
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
  };
}

function toInputItems(message: ModelMessage): ResponseInputItem[] {
  switch (message.role) {
    case 'user':
      return [{ role: 'user', content: message.content }];
    case 'tool':
      return [{ type: 'function_call_output', call_id: message.callId, output: message.content }];
    case 'assistant': {
      const items: ResponseInputItem[] = [];
      for (const part of message.providerParts ?? []) {
        // Reasoning items go back verbatim, before the output they led to.
        if (part.provider === providerName && part.type === 'reasoning')
          items.push(part.data as ResponseInputItem);
      }
      if (message.text !== '') items.push({ role: 'assistant', content: message.text });
      for (const call of message.toolCalls) {
        items.push({
          type: 'function_call',
          call_id: call.id,
          name: call.name,
          arguments: stringifyToolInput(call.input),
        });
      }
      return items;
    }
  }
}

type PendingCall = { callId: string; name: string; json: string };

/** Folds Responses stream events into model events. */
class ResponsesStreamState {
  stopReason: ModelStopReason | undefined;
  usage: Partial<Usage> | undefined;
  failure: ProviderError | undefined;
  private readonly calls = new Map<string, PendingCall>();
  private sawToolCall = false;

  *handle(event: ResponseStreamEvent): Generator<ModelEvent> {
    switch (event.type) {
      case 'response.output_text.delta':
        yield { type: 'text.delta', text: event.delta };
        return;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        yield { type: 'thinking.delta', text: event.delta };
        return;
      case 'response.output_item.added':
        if (event.item.type === 'function_call') {
          this.calls.set(event.item.id ?? event.item.call_id, {
            callId: event.item.call_id,
            name: event.item.name,
            json: event.item.arguments ?? '',
          });
        }
        return;
      case 'response.function_call_arguments.delta': {
        const call = this.calls.get(event.item_id);
        if (call) call.json += event.delta;
        return;
      }
      case 'response.output_item.done':
        yield* this.itemDone(event.item);
        return;
      case 'response.completed':
      case 'response.incomplete':
        this.complete(event.response);
        return;
      case 'response.failed':
        this.failure = classifyVendorError(event.response.error?.code, event.response.error?.message);
        return;
      case 'error':
        this.failure = classifyVendorError(event.code ?? undefined, event.message);
        return;
    }
  }

  private *itemDone(item: Extract<ResponseStreamEvent, { type: 'response.output_item.done' }>['item']) {
    if (item.type === 'function_call') {
      const pending = this.calls.get(item.id ?? item.call_id);
      // The finished item carries the whole argument text; the deltas are the fallback.
      const json = item.arguments || pending?.json || '';
      this.sawToolCall = true;
      const call = { id: item.call_id, name: item.name, input: parseToolInput(json) };
      yield { type: 'tool_call', call } satisfies ModelEvent;
    } else if (item.type === 'reasoning') {
      yield {
        type: 'provider_part',
        part: { provider: providerName, type: 'reasoning', data: item },
      } satisfies ModelEvent;
    }
  }

  private complete(response: VendorResponse) {
    if (response.usage) this.usage = mapResponsesUsage(response.usage);
    const reason = response.incomplete_details?.reason;
    if (reason === 'max_output_tokens') this.stopReason = 'max_tokens';
    else if (reason === 'content_filter') this.stopReason = 'refusal';
    else if (response.status === 'incomplete') this.stopReason = 'other';
    else this.stopReason = this.sawToolCall ? 'tool_use' : 'end_turn';
  }
}

/** Cached tokens are part of `input_tokens` at OpenAI; agentchart counts them apart, as Anthropic does. */
function mapResponsesUsage(usage: ResponseUsage): Partial<Usage> {
  const cacheReadTokens = tokenCount(usage.input_tokens_details?.cached_tokens);
  const cacheWriteTokens = tokenCount(usage.input_tokens_details?.cache_write_tokens);
  return {
    inputTokens: Math.max(0, tokenCount(usage.input_tokens) - cacheReadTokens - cacheWriteTokens),
    outputTokens: tokenCount(usage.output_tokens),
    cacheReadTokens,
    cacheWriteTokens,
  };
}
