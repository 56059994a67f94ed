import { type FakeServer, sse, startFakeServer, type WireAction } from './fake-server.ts';
import { openaiHttpError } from './openai-errors.ts';
import { openaiOverflowAction } from './overflow.ts';
import { argumentOrder, rawUsage, stopOf, usageOf, type WireReply, type WireTurn } from './reply.ts';

/** A fake OpenAI Responses API: the SDK (baseURL `${url}/v1`) posts to `/v1/responses`. */
export type OpenAIResponsesServer = FakeServer & { reply(reply: WireReply): void };

export async function startOpenAIResponsesServer(): Promise<OpenAIResponsesServer> {
  const server = await startFakeServer();
  return Object.assign(server, {
    reply: (reply: WireReply) => server.enqueue(openaiResponsesAction(reply)),
  });
}

/** The reasoning item the fake server streams for `turn.thinking` (and expects back verbatim). */
export function reasoningItem(thinking: { pieces: string[]; signature: string }) {
  return {
    id: 'rs_fake',
    type: 'reasoning',
    summary: [{ type: 'summary_text', text: thinking.pieces.join('') }],
    encrypted_content: thinking.signature,
  };
}

export function openaiResponsesAction(reply: WireReply): WireAction {
  if ('httpError' in reply) return openaiHttpError(reply.httpError);
  if ('overflow' in reply) return openaiOverflowAction(reply.overflow);
  const turn = reply.turn;
  const writer = new EventWriter();
  const output = writeContent(turn, writer);
  const ending = turn.ending ?? 'complete';
  if (ending === 'complete') {
    const usage = usageOf(turn);
    const cut = stopOf(turn) === 'max_tokens';
    writer.add(cut ? 'response.incomplete' : 'response.completed', {
      response: {
        ...responseShell(cut ? 'incomplete' : 'completed'),
        output,
        incomplete_details: cut ? { reason: 'max_output_tokens' } : null,
        usage: turn.rawCounts
          ? {
              ...rawUsage(turn.rawCounts, { input: 'input_tokens', output: 'output_tokens' }),
              input_tokens_details: rawUsage(turn.rawCounts, {
                cacheRead: 'cached_tokens',
                cacheWrite: 'cache_write_tokens',
              }),
            }
          : {
              input_tokens: usage.input + usage.cacheRead + usage.cacheWrite,
              input_tokens_details: { cached_tokens: usage.cacheRead, cache_write_tokens: usage.cacheWrite },
              output_tokens: usage.output,
              output_tokens_details: { reasoning_tokens: 0 },
              total_tokens: usage.input + usage.cacheRead + usage.cacheWrite + usage.output,
            },
      },
    });
  } else if (ending === 'malformed') {
    writer.messages.push('event: response.output_text.delta\ndata: {"type":\n\n');
  } else if (ending === 'error_event') {
    writer.add('error', {
      code: turn.errorType ?? 'server_error',
      message: 'fake in-stream error',
      param: null,
    });
  } else if (ending === 'overflow_event') {
    // The Responses API reports a failed response; its error carries the code.
    const error = { code: 'context_length_exceeded', message: responsesOverflowMessage };
    writer.add('response.failed', { response: { ...responseShell('failed'), output, error } });
  }
  const wireEnding = ending === 'hang' ? 'hang' : ending === 'reset' ? 'reset' : 'end';
  return { type: 'sse', messages: writer.messages, ending: wireEnding };
}

const responsesOverflowMessage =
  'Your input exceeds the context window of this model. Please adjust your input and try again.';

class EventWriter {
  readonly messages: string[] = [];
  private sequence = 0;

  add(type: string, data: Record<string, unknown>): void {
    this.messages.push(sse({ type, sequence_number: this.sequence++, ...data }, type));
  }
}

function responseShell(status: string) {
  return { id: 'resp_fake', object: 'response', created_at: 1, model: 'fake-model', status, error: null };
}

function writeContent(turn: WireTurn, writer: EventWriter): unknown[] {
  writer.add('response.created', { response: { ...responseShell('in_progress'), output: [] } });
  const output: unknown[] = [];
  if (turn.thinking) {
    const item = reasoningItem(turn.thinking);
    const output_index = output.length;
    writer.add('response.output_item.added', { output_index, item: { ...item, summary: [] } });
    for (const delta of turn.thinking.pieces) {
      writer.add('response.reasoning_summary_text.delta', {
        item_id: item.id,
        output_index,
        summary_index: 0,
        delta,
      });
    }
    writer.add('response.output_item.done', { output_index, item });
    output.push(item);
  }
  if (turn.text) {
    const output_index = output.length;
    const item_id = 'msg_fake';
    const shell = { id: item_id, type: 'message', role: 'assistant', status: 'in_progress', content: [] };
    writer.add('response.output_item.added', { output_index, item: shell });
    for (const delta of turn.text) {
      writer.add('response.output_text.delta', {
        item_id,
        output_index,
        content_index: 0,
        delta,
        logprobs: [],
      });
    }
    const text = turn.text.join('');
    const item = { ...shell, status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
    writer.add('response.output_item.done', { output_index, item });
    output.push(item);
  }
  output.push(...writeCalls(turn, writer, output.length));
  return output;
}

function writeCalls(turn: WireTurn, writer: EventWriter, firstIndex: number): unknown[] {
  const calls = (turn.toolCalls ?? []).map((call, position) => ({
    id: `fc_${position}`,
    type: 'function_call',
    call_id: call.id,
    name: call.name,
    arguments: call.argumentPieces.join(''),
    status: 'completed',
  }));
  const added = new Set<number>();
  const add = (index: number) => {
    added.add(index);
    writer.add('response.output_item.added', {
      output_index: firstIndex + index,
      item: { ...calls[index], arguments: '', status: 'in_progress' },
    });
  };
  if (turn.interleave) for (const index of calls.keys()) add(index);
  for (const { call, piece } of argumentOrder(turn)) {
    if (!added.has(call)) add(call);
    const item_id = calls[call]!.id;
    writer.add('response.function_call_arguments.delta', {
      item_id,
      output_index: firstIndex + call,
      delta: piece,
    });
  }
  for (const [index, item] of calls.entries()) {
    if (!added.has(index)) add(index);
    writer.add('response.output_item.done', { output_index: firstIndex + index, item });
  }
  return calls;
}
