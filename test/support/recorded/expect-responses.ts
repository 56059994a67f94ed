// The reference reading of a recorded Responses stream, written apart from the adapter
// (src/providers/openai-responses.ts): the finished output items in order, what each means for the runtime,
// and the response's end.
import type { Citation, ModelStopReason, ToolCallRequest } from '../../../src/providers/types.ts';
import { count, emptyOutcome, type Outcome, parseArguments } from './outcome.ts';

type Item = Record<string, unknown> & { type: string };
type ContentPart = { type: string; text?: string; refusal?: string; annotations?: Record<string, unknown>[] };

const plainTypes = new Set(['reasoning', 'message', 'function_call']);

export function expectResponses(events: Record<string, unknown>[], errorKind?: string): Outcome {
  const outcome = emptyOutcome();
  const items = new Map<number, Item>();
  // An item is known by the id it was announced with: some vendors (Copilot) send a new one on every event.
  const firstIds = new Map<number, unknown>();
  let response: Record<string, unknown> | undefined;
  let failed = false;
  for (const event of events) {
    const type = event.type as string;
    if (type === 'response.output_item.added')
      firstIds.set(event.output_index as number, (event.item as Item).id);
    else if (type === 'response.output_item.done') {
      const item = event.item as Item;
      const id = firstIds.get(event.output_index as number) ?? item.id;
      items.set(event.output_index as number, id === item.id ? item : { ...item, id });
    } else if (type === 'response.reasoning_summary_text.delta' || type === 'response.reasoning_text.delta')
      outcome.thinking += event.delta as string;
    else if (type === 'response.completed' || type === 'response.incomplete')
      response = event.response as Record<string, unknown>;
    else if (type === 'error' || type === 'response.failed') failed = true;
  }
  const output = [...items.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
  const messages = output.filter((item) => item.type === 'message');
  const ordered =
    output.some((item) => !plainTypes.has(item.type)) ||
    messages.length > 1 ||
    messages.some((item) => item.phase != null || partsOf(item).some((part) => part.annotations?.length));
  let refused = false;
  for (const item of output) {
    if (item.type === 'message') refused = readMessage(outcome, item) || refused;
    else if (item.type === 'function_call' || item.type === 'custom_tool_call')
      outcome.toolCalls.push(callOf(item));
    if (ordered || item.type === 'reasoning')
      outcome.providerParts.push({ provider: 'openai', type: item.type, data: item });
  }
  if (response?.usage) outcome.usage = responsesUsage(response.usage as Record<string, unknown>);
  const awaitingApproval = output.some((item) => item.type === 'mcp_approval_request');
  outcome.end = failed
    ? { error: errorKind ?? 'undeclared' }
    : response === undefined
      ? { error: 'network' }
      : { stopReason: stopOf(response, { refused, awaitingApproval, calls: outcome.toolCalls.length }) };
  return outcome;
}

function partsOf(item: Item): ContentPart[] {
  return (item.content as ContentPart[] | undefined) ?? [];
}

/** A message's text joins the text before it with a blank line; its citations point into the joined text. */
function readMessage(outcome: Outcome, item: Item): boolean {
  const parts = partsOf(item);
  const text = parts.map((part) => part.text ?? part.refusal ?? '').join('');
  if (text !== '' && outcome.text !== '') outcome.text += '\n\n';
  for (const part of parts) {
    const start = outcome.text.length;
    outcome.text += part.text ?? part.refusal ?? '';
    for (const annotation of part.annotations ?? []) {
      const citation = citationOf(annotation, start);
      if (citation) outcome.citations.push(citation);
    }
  }
  return parts.some((part) => part.type === 'refusal');
}

function citationOf(raw: Record<string, unknown>, offset: number): Citation | undefined {
  if (raw.type === 'url_citation') {
    const citation: Citation = { source: 'url', url: raw.url as string };
    if (typeof raw.title === 'string') citation.title = raw.title;
    return { ...citation, start: offset + count(raw.start_index), end: offset + count(raw.end_index) };
  }
  if (raw.type === 'file_citation' || raw.type === 'container_file_citation') {
    const citation: Citation = { source: 'file', fileId: raw.file_id as string };
    if (typeof raw.filename === 'string') citation.title = raw.filename;
    if (raw.type === 'file_citation')
      return { ...citation, start: offset + count(raw.index), end: offset + count(raw.index) };
    return { ...citation, start: offset + count(raw.start_index), end: offset + count(raw.end_index) };
  }
  return undefined;
}

function callOf(item: Item): ToolCallRequest {
  const input = item.type === 'custom_tool_call' ? item.input : parseArguments(item.arguments as string);
  return { id: item.call_id as string, name: item.name as string, input };
}

function stopOf(
  response: Record<string, unknown>,
  seen: { refused: boolean; awaitingApproval: boolean; calls: number },
): ModelStopReason {
  const incomplete = (response.incomplete_details as { reason?: string } | null)?.reason;
  if (incomplete === 'max_output_tokens') return 'max_tokens';
  if (incomplete === 'content_filter' || seen.refused) return 'refusal';
  if (response.status === 'incomplete') return 'other';
  if (seen.calls > 0) return 'tool_use';
  // The server waits for an answer to its approval request; the runtime answers it on the next request.
  if (seen.awaitingApproval) return 'pause_turn';
  return 'end_turn';
}

function responsesUsage(raw: Record<string, unknown>) {
  const details = (raw.input_tokens_details ?? {}) as Record<string, unknown>;
  const cacheReadTokens = count(details.cached_tokens);
  const cacheWriteTokens = count(details.cache_write_tokens);
  return {
    inputTokens: Math.max(0, count(raw.input_tokens) - cacheReadTokens - cacheWriteTokens),
    outputTokens: count(raw.output_tokens),
    cacheReadTokens,
    cacheWriteTokens,
  };
}
