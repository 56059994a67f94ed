// The reference reading of a recorded Chat Completions stream (OpenAI and the compatible vendors), written
// apart from the adapter (src/providers/openai-chat.ts): every chunk in order, tool-call pieces joined by
// index, and the stream's end as the SDK sees it (it stops at the first chunk that carries an `error`).
import type { Citation, ModelStopReason, ToolCallRequest, Usage } from '../../../src/providers/types.ts';
import { count, emptyOutcome, type Outcome, parseArguments } from './outcome.ts';

type Chunk = {
  error?: unknown;
  usage?: Record<string, unknown> | null;
  citations?: unknown;
  choices?: { delta?: Record<string, unknown>; finish_reason?: string | null }[];
};
type Piece = { index?: number; id?: string; function?: { name?: string; arguments?: string } };

export function expectChat(chunks: Chunk[], errorKind?: string): Outcome {
  const outcome = emptyOutcome();
  const calls = new Map<number, { id: string; name: string; json: string }>();
  let usage: Usage | undefined;
  let finish: string | undefined;
  let refused = false;
  let urls: string[] = [];
  let failed = false;
  for (const chunk of chunks) {
    if (chunk.error) {
      failed = true;
      break;
    }
    if (chunk.usage) usage = chatUsage(chunk.usage);
    if (Array.isArray(chunk.citations)) urls = chunk.citations.filter((url) => typeof url === 'string');
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const delta = choice.delta ?? {};
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === 'string') outcome.thinking += reasoning;
    if (typeof delta.content === 'string') outcome.text += delta.content;
    for (const part of Array.isArray(delta.content) ? delta.content : []) readContentPart(outcome, part);
    if (typeof delta.refusal === 'string' && delta.refusal !== '') {
      outcome.text += delta.refusal;
      refused = true;
    }
    ((delta.tool_calls as Piece[] | undefined) ?? []).forEach((piece, position) => {
      const call = calls.get(piece.index ?? position) ?? { id: '', name: '', json: '' };
      call.id ||= piece.id ?? '';
      call.name += piece.function?.name ?? '';
      call.json += piece.function?.arguments ?? '';
      calls.set(piece.index ?? position, call);
    });
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  outcome.toolCalls = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(
      ([index, call]): ToolCallRequest => ({
        id: call.id || `call_${index}`,
        name: call.name,
        input: parseArguments(call.json),
      }),
    );
  outcome.citations = urls.map((url): Citation => ({ source: 'url', url }));
  outcome.usage = usage;
  outcome.end = endOf({ failed, finish, refused, errorKind, calls: outcome.toolCalls.length });
  return outcome;
}

/** Mistral's reasoning models send content as a list of text and thinking parts. */
function readContentPart(outcome: Outcome, part: { type?: string; text?: unknown; thinking?: unknown }) {
  if (part.type === 'text' && typeof part.text === 'string') outcome.text += part.text;
  if (part.type === 'thinking' && Array.isArray(part.thinking)) {
    for (const inner of part.thinking as { text?: unknown }[]) {
      if (typeof inner.text === 'string') outcome.thinking += inner.text;
    }
  }
}

function endOf(seen: {
  failed: boolean;
  finish: string | undefined;
  refused: boolean;
  errorKind: string | undefined;
  calls: number;
}): Outcome['end'] {
  // A vendor that restates the token limit as an error after finishing with `length` has finished.
  if (seen.failed && seen.finish !== 'length') return { error: seen.errorKind ?? 'undeclared' };
  if (seen.finish === undefined) return { error: 'network' };
  const reasons: Record<string, ModelStopReason> = {
    stop: 'end_turn',
    tool_calls: 'tool_use',
    function_call: 'tool_use',
    length: 'max_tokens',
    content_filter: 'refusal',
  };
  if (seen.refused) return { stopReason: 'refusal' };
  if (seen.calls > 0) return { stopReason: 'tool_use' };
  return { stopReason: reasons[seen.finish] ?? 'other' };
}

/** Cached input is counted inside `prompt_tokens` at OpenAI; the runtime counts it apart. */
function chatUsage(raw: Record<string, unknown>): Usage {
  const details = (raw.prompt_tokens_details ?? {}) as Record<string, unknown>;
  const cacheReadTokens = count(details.cached_tokens);
  const cacheWriteTokens = count(details.cache_write_tokens);
  return {
    inputTokens: Math.max(0, count(raw.prompt_tokens) - cacheReadTokens - cacheWriteTokens),
    outputTokens: count(raw.completion_tokens),
    cacheReadTokens,
    cacheWriteTokens,
  };
}
