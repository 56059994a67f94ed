import {
  type FakeServer,
  type RecordedRequest,
  sse,
  startFakeServer,
  type WireAction,
} from './fake-server.ts';
import { openaiHttpError } from './openai-errors.ts';
import { openaiOverflowAction, openaiOverflowError } from './overflow.ts';
import {
  argumentOrder,
  type RawCounts,
  rawUsage,
  stopOf,
  usageOf,
  type WireReply,
  type WireTurn,
} from './reply.ts';

/** A fake OpenAI Chat Completions API: the SDK (baseURL `${url}/v1`) posts to `/v1/chat/completions`. */
export type OpenAIChatServer = FakeServer & { reply(reply: WireReply): void };

/** `respond` answers the requests no queued reply is left for, from their bodies (see `startFakeServer`). */
export async function startOpenAIChatServer(
  respond?: (request: RecordedRequest) => WireReply | undefined,
): Promise<OpenAIChatServer> {
  const server = await startFakeServer((request) => {
    const reply = respond?.(request);
    return reply === undefined ? undefined : openaiChatAction(reply);
  });
  return Object.assign(server, {
    reply: (reply: WireReply) => server.enqueue(openaiChatAction(reply)),
  });
}

const finishReasons = { end_turn: 'stop', tool_use: 'tool_calls', max_tokens: 'length' } as const;

export function openaiChatAction(reply: WireReply): WireAction {
  if ('httpError' in reply) return openaiHttpError(reply.httpError);
  if ('overflow' in reply) return openaiOverflowAction(reply.overflow);
  const turn = reply.turn;
  const messages = [...contentChunks(turn)];
  const ending = turn.ending ?? 'complete';
  if (ending === 'complete') {
    const usage = usageOf(turn);
    messages.push(
      chunk([{ index: 0, delta: {}, finish_reason: finishReasons[stopOf(turn)], logprobs: null }]),
      chunk(
        [],
        turn.rawCounts
          ? rawChatUsage(turn.rawCounts)
          : {
              prompt_tokens: usage.input + usage.cacheRead + usage.cacheWrite,
              completion_tokens: usage.output,
              total_tokens: usage.input + usage.cacheRead + usage.cacheWrite + usage.output,
              prompt_tokens_details: { cached_tokens: usage.cacheRead, cache_write_tokens: usage.cacheWrite },
            },
      ),
      sse('[DONE]'),
    );
  } else if (ending === 'malformed') {
    messages.push('data: {"id":"chatcmpl-fake","choices":[{\n\n');
  } else if (ending === 'error_event') {
    const type = turn.errorType ?? 'server_error';
    messages.push(sse({ error: { message: `fake ${type}`, type, code: null, param: null } }));
  } else if (ending === 'overflow_event') {
    messages.push(sse({ error: openaiOverflowError }));
  }
  const wireEnding = ending === 'hang' ? 'hang' : ending === 'reset' ? 'reset' : 'end';
  return { type: 'sse', messages, ending: wireEnding };
}

function* contentChunks(turn: WireTurn): Generator<string> {
  yield delta({ role: 'assistant', content: '' });
  for (const piece of turn.thinking?.pieces ?? []) yield delta({ reasoning_content: piece });
  for (const piece of turn.text ?? []) yield delta({ content: piece });
  const calls = turn.toolCalls ?? [];
  const announced = new Set<number>();
  const announce = (index: number) => {
    announced.add(index);
    const call = calls[index]!;
    return delta({
      tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
    });
  };
  if (turn.interleave) for (const index of calls.keys()) yield announce(index);
  for (const { call, piece } of argumentOrder(turn)) {
    if (!announced.has(call)) yield announce(call);
    yield delta({ tool_calls: [{ index: call, function: { arguments: piece } }] });
  }
  for (const index of calls.keys()) if (!announced.has(index)) yield announce(index);
}

function delta(value: Record<string, unknown>): string {
  return chunk([{ index: 0, delta: value, finish_reason: null, logprobs: null }]);
}

function chunk(choices: unknown[], usage: unknown = null): string {
  return sse({
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'fake-model',
    system_fingerprint: null,
    choices,
    usage,
  });
}

function rawChatUsage(raw: RawCounts): Record<string, unknown> {
  const top = rawUsage(raw, { input: 'prompt_tokens', output: 'completion_tokens' });
  const details = rawUsage(raw, { cacheRead: 'cached_tokens', cacheWrite: 'cache_write_tokens' });
  return Object.keys(details).length > 0 ? { ...top, prompt_tokens_details: details } : top;
}
