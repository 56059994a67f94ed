// The reference reading of a recorded Anthropic Messages stream: the whole content of the message, block by
// block, as a non-streaming response would hold it, and what the runtime should keep of it. Written apart
// from the adapter (src/providers/anthropic-stream.ts) and much simpler: it sees the whole stream at once.
import type { Citation, ModelStopReason, Usage } from '../../../src/providers/types.ts';
import { count, emptyOutcome, type Outcome, parseArguments } from './outcome.ts';

type Block = Record<string, unknown> & { type: string };
type Open = { block: Block; json: string; citations: unknown[] | undefined };

const plainTypes = new Set(['text', 'thinking', 'redacted_thinking', 'tool_use']);
const toolTypes = new Set(['tool_use', 'server_tool_use', 'mcp_tool_use']);
const usageNames = {
  inputTokens: 'input_tokens',
  outputTokens: 'output_tokens',
  cacheReadTokens: 'cache_read_input_tokens',
  cacheWriteTokens: 'cache_creation_input_tokens',
} as const;

export function expectAnthropic(events: Record<string, unknown>[], errorKind?: string): Outcome {
  const blocks = new Map<number, Open>();
  const usage: Partial<Usage> = {};
  let iterations: Record<string, unknown>[] | undefined;
  let stop: string | undefined;
  let failed = false;
  for (const event of events) {
    if (event.type === 'message_start') {
      const message = event.message as Record<string, unknown>;
      readUsage(usage, message.usage);
      (message.content as Block[]).forEach((block, index) => {
        blocks.set(index, { block, json: '', citations: undefined });
      });
      if (typeof message.stop_reason === 'string') stop = message.stop_reason;
    } else if (event.type === 'content_block_start') {
      const block = event.content_block as Block;
      const citations = Array.isArray(block.citations) ? [...block.citations] : undefined;
      blocks.set(event.index as number, { block: { ...block }, json: '', citations });
    } else if (event.type === 'content_block_delta') {
      addDelta(blocks.get(event.index as number)!, event.delta as Record<string, unknown>);
    } else if (event.type === 'message_delta') {
      const delta = event.delta as Record<string, unknown>;
      if (typeof delta.stop_reason === 'string') stop = delta.stop_reason;
      readUsage(usage, event.usage);
      const listed = (event.usage as { iterations?: unknown }).iterations;
      if (Array.isArray(listed)) iterations = listed;
    } else if (event.type === 'error') {
      failed = true;
    }
  }
  const content = [...blocks.entries()].sort(([a], [b]) => a - b).map(([, open]) => complete(open));
  return outcomeOf(content, {
    usage: iterations ? sumIterations(iterations) : usage,
    end: failed
      ? { error: errorKind ?? 'undeclared' }
      : stop === undefined
        ? { error: 'network' }
        : { stopReason: stopReason(stop) },
  });
}

function addDelta(open: Open, delta: Record<string, unknown>): void {
  const block = open.block;
  if (delta.type === 'text_delta') block.text = `${block.text ?? ''}${delta.text}`;
  else if (delta.type === 'thinking_delta') block.thinking = `${block.thinking ?? ''}${delta.thinking}`;
  else if (delta.type === 'signature_delta') block.signature = `${block.signature ?? ''}${delta.signature}`;
  else if (delta.type === 'input_json_delta') open.json += delta.partial_json;
  else if (delta.type === 'citations_delta') open.citations = [...(open.citations ?? []), delta.citation];
  else if (delta.type === 'compaction_delta') block.content = `${block.content ?? ''}${delta.content}`;
}

/** The block as the whole message holds it: tool input parsed, citations gathered. */
function complete(open: Open): Block {
  const block = { ...open.block };
  if (toolTypes.has(block.type) && open.json.trim() !== '') block.input = parseArguments(open.json);
  if (open.citations !== undefined) block.citations = open.citations;
  return block;
}

function outcomeOf(content: Block[], rest: { usage: Partial<Usage>; end: Outcome['end'] }): Outcome {
  const outcome = emptyOutcome();
  const ordered = content.some(
    (block) =>
      !plainTypes.has(block.type) ||
      (block.type === 'text' && Array.isArray(block.citations) && block.citations.length > 0),
  );
  for (const block of content) {
    if (block.type === 'text') {
      const start = outcome.text.length;
      outcome.text += block.text as string;
      for (const citation of (block.citations as Record<string, unknown>[] | undefined) ?? []) {
        outcome.citations.push(neutralCitation(citation, start, outcome.text.length));
      }
    } else if (block.type === 'thinking') {
      outcome.thinking += block.thinking as string;
    } else if (block.type === 'tool_use') {
      outcome.toolCalls.push({ id: block.id as string, name: block.name as string, input: block.input });
    }
    if (ordered || block.type === 'thinking' || block.type === 'redacted_thinking') {
      outcome.providerParts.push({ provider: 'anthropic', type: block.type, data: block });
    }
  }
  outcome.usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, ...rest.usage };
  outcome.end = rest.end;
  return outcome;
}

function neutralCitation(raw: Record<string, unknown>, start: number, end: number): Citation {
  const citation: Citation =
    raw.type === 'web_search_result_location'
      ? { source: 'url', url: raw.url as string }
      : { source: 'document' };
  const title = raw.title ?? raw.document_title;
  if (typeof title === 'string') citation.title = title;
  if (typeof raw.cited_text === 'string') citation.citedText = raw.cited_text;
  return { ...citation, start, end };
}

function readUsage(into: Partial<Usage>, raw: unknown): void {
  const fields = (raw ?? {}) as Record<string, unknown>;
  for (const [key, name] of Object.entries(usageNames) as [keyof Usage, string][]) {
    if (fields[name] !== undefined && fields[name] !== null) into[key] = count(fields[name]);
  }
}

/** With server-side compaction every iteration is billed: the totals are their sums. */
function sumIterations(iterations: Record<string, unknown>[]): Partial<Usage> {
  const total: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  for (const iteration of iterations) {
    for (const [key, name] of Object.entries(usageNames) as [keyof Usage, string][]) {
      total[key] += count(iteration[name]);
    }
  }
  return total;
}

function stopReason(raw: string | undefined): ModelStopReason {
  const same = ['end_turn', 'tool_use', 'max_tokens', 'stop_sequence', 'refusal', 'pause_turn'];
  if (raw !== undefined && same.includes(raw)) return raw as ModelStopReason;
  return raw === 'model_context_window_exceeded' ? 'max_tokens' : 'other';
}
