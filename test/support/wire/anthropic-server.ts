import { type FakeServer, sse, startFakeServer, type WireAction } from './fake-server.ts';
import { anthropicOverflowAction, anthropicOverflowError } from './overflow.ts';
import {
  type RawCounts,
  rawUsage,
  stopOf,
  usageOf,
  type WireHttpError,
  type WireReply,
  type WireTurn,
} from './reply.ts';

/** A fake Anthropic Messages API: the real SDK posts to `${url}/v1/messages` and streams from it. */
export type AnthropicServer = FakeServer & { reply(reply: WireReply): void };

export async function startAnthropicServer(): Promise<AnthropicServer> {
  const server = await startFakeServer();
  return Object.assign(server, {
    reply: (reply: WireReply) => server.enqueue(anthropicAction(reply)),
  });
}

export function anthropicAction(reply: WireReply): WireAction {
  if ('httpError' in reply) return httpError(reply.httpError);
  if ('overflow' in reply) return anthropicOverflowAction(reply.overflow);
  const turn = reply.turn;
  const messages = [...contentMessages(turn)];
  const ending = turn.ending ?? 'complete';
  if (ending === 'complete') {
    const usage = usageOf(turn);
    messages.push(
      event('message_delta', {
        delta: { stop_reason: stopOf(turn), stop_sequence: null },
        usage: turn.rawCounts ? rawAnthropicUsage(turn.rawCounts) : { output_tokens: usage.output },
      }),
      event('message_stop', {}),
    );
  } else if (ending === 'malformed') {
    messages.push('event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{\n\n');
  } else if (ending === 'error_event') {
    const type = turn.errorType ?? 'api_error';
    messages.push(sse({ type: 'error', error: { type, message: `fake ${type}` } }, 'error'));
  } else if (ending === 'overflow_event') {
    messages.push(sse({ type: 'error', error: anthropicOverflowError }, 'error'));
  }
  const wireEnding = ending === 'hang' ? 'hang' : ending === 'reset' ? 'reset' : 'end';
  return { type: 'sse', messages, ending: wireEnding };
}

function* contentMessages(turn: WireTurn): Generator<string> {
  const usage = usageOf(turn);
  yield event('message_start', {
    message: {
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model: 'fake-model',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: turn.rawCounts
        ? rawAnthropicUsage(turn.rawCounts)
        : {
            input_tokens: usage.input,
            output_tokens: 1,
            cache_read_input_tokens: usage.cacheRead,
            cache_creation_input_tokens: usage.cacheWrite,
          },
    },
  });
  let index = 0;
  if (turn.thinking) {
    yield event('content_block_start', {
      index,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    });
    for (const thinking of turn.thinking.pieces) {
      yield event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking } });
    }
    yield event('content_block_delta', {
      index,
      delta: { type: 'signature_delta', signature: turn.thinking.signature },
    });
    yield event('content_block_stop', { index });
    index++;
  }
  if (turn.text) {
    yield event('content_block_start', { index, content_block: { type: 'text', text: '' } });
    yield sse({ type: 'ping' }, 'ping');
    for (const text of turn.text)
      yield event('content_block_delta', { index, delta: { type: 'text_delta', text } });
    yield event('content_block_stop', { index });
    index++;
  }
  for (const call of turn.toolCalls ?? []) {
    yield event('content_block_start', {
      index,
      content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
    });
    for (const partial_json of ['', ...call.argumentPieces]) {
      yield event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
    }
    yield event('content_block_stop', { index });
    index++;
  }
}

function event(type: string, data: Record<string, unknown>): string {
  return sse({ type, ...data }, type);
}

const defaultTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function httpError(error: WireHttpError): WireAction {
  const type = error.errorType ?? defaultTypes[error.status] ?? 'api_error';
  return {
    type: 'http',
    status: error.status,
    headers: { 'request-id': 'req_fake', ...error.headers },
    body: { type: 'error', error: { type, message: error.message } },
  };
}

/** Raw counts in both `message_start` and `message_delta` (Anthropic's counters are cumulative). */
function rawAnthropicUsage(raw: RawCounts): Record<string, unknown> {
  return rawUsage(raw, {
    input: 'input_tokens',
    output: 'output_tokens',
    cacheRead: 'cache_read_input_tokens',
    cacheWrite: 'cache_creation_input_tokens',
  });
}
