import type { ModelMessage, ModelRequest, ToolSpec } from '../providers/types.ts';
import type { CompactionPlan } from './compaction-plan.ts';
import { project } from './projection.ts';
import type { LogEvent } from './types.ts';

/**
 * The last user message of every compaction request; `isCompactionRequest` recognises a request by it.
 * It asks for the summary after the conversation itself, so the request starts as the steps' requests
 * did and the vendor's cache reads that prefix instead of billing the conversation once more.
 */
export const summaryInstruction =
  '[Compaction] Stop working on the task. Summarise the conversation above for the agent that ' +
  "continues it in its place. Keep what it needs to go on: the user's requests and constraints in " +
  'their own words where they matter, the decisions made and why, the files read, created or changed ' +
  '(with paths), commands run and what they showed, what is done, what is still open, and the next ' +
  'step. Answer with the summary as plain text only; do not call tools.';

/**
 * The model request that turns the planned part of the conversation into a summary: the conversation's
 * own system prompt, tools and messages up to the end of the planned range (earlier summaries included),
 * then one user message asking for the summary. Each step's request wrote that prefix to the vendor's
 * cache (see the adapters' breakpoints), so the summary reads it rather than paying for it again. The
 * tools stay offered because they are part of the prefix; the answer's text is the summary and tool
 * calls in it are dropped. `instructions` (the host's, or those of `agent.compact`) are added.
 */
export function compactionRequest(
  events: readonly LogEvent[],
  plan: CompactionPlan,
  options: { instructions?: string | undefined; system?: string; tools?: readonly ToolSpec[] } = {},
): ModelRequest {
  const to = plan.replaces[1];
  // Compactions written after `to` still count: their summaries stand for part of the range.
  const older = events.filter((event) => event.seq <= to || event.type === 'compaction');
  const system = options.system ?? '';
  const tools = options.tools ?? [];
  const { messages } = project(older, { system, tools });
  const extra = options.instructions ? `\n\nAlso follow these instructions: ${options.instructions}` : '';
  const ask: ModelMessage = { role: 'user', content: `${summaryInstruction}${extra}` };
  return { system, tools, messages: [...messages, ask] };
}

/** Whether `request` asks for a summary (a compaction) rather than the next step of the conversation. */
export function isCompactionRequest(request: Pick<ModelRequest, 'messages'>): boolean {
  const last = request.messages.at(-1);
  return last?.role === 'user' && last.content.startsWith(summaryInstruction);
}
