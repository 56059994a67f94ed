import type { ModelMessage, ModelRequest } from '../providers/types.ts';
import type { CompactionPlan } from './compaction-plan.ts';
import { project, summaryPrefix } from './projection.ts';
import type { LogEvent } from './types.ts';

/** The system prompt of every compaction request; `isCompactionRequest` recognises a request by it. */
export const compactionSystemPrompt =
  'You summarise the conversation of a coding agent so that the agent can go on working with your ' +
  'summary in place of the conversation. You only write the summary; you never continue the work.';

const summaryInstruction =
  'Summarise the conversation above for the agent that continues it. Keep what it needs to go on: ' +
  "the user's requests and constraints in their own words where they matter, the decisions made and " +
  'why, the files read, created or changed (with paths), commands run and what they showed, what is ' +
  'done, what is still open, and the next step. Write plain text; do not call tools.';

// A tool's output is the bulk of most conversations; its head and tail say enough for a summary.
const maxToolText = 4_000;
const maxInputText = 1_000;

/**
 * The model request that turns the planned part of the conversation into a summary: the summarising
 * system prompt, no tools, and one user message holding that part as a plain transcript (earlier
 * summaries included), then what to write. A transcript rather than the original messages: a request
 * with tool calls but no tools is refused by some vendors, and the model should not answer the
 * conversation, only describe it. `instructions` (the host's, or those of `agent.compact`) are added.
 */
export function compactionRequest(
  events: readonly LogEvent[],
  plan: CompactionPlan,
  options: { instructions?: string | undefined } = {},
): ModelRequest {
  const to = plan.replaces[1];
  // Compactions written after `to` still count: their summaries stand for part of the range.
  const older = events.filter((event) => event.seq <= to || event.type === 'compaction');
  const { messages } = project(older, { system: '', tools: [] });
  const extra = options.instructions ? `\n\nAlso follow these instructions: ${options.instructions}` : '';
  const content = `<conversation>\n${transcript(messages)}\n</conversation>\n\n${summaryInstruction}${extra}`;
  return { system: compactionSystemPrompt, tools: [], messages: [{ role: 'user', content }] };
}

/** Whether `request` asks for a summary (a compaction) rather than the next step of the conversation. */
export function isCompactionRequest(request: Pick<ModelRequest, 'system'>): boolean {
  return request.system === compactionSystemPrompt;
}

function transcript(messages: readonly ModelMessage[]): string {
  return messages.map(render).join('\n\n');
}

function render(message: ModelMessage): string {
  switch (message.role) {
    case 'user':
      return message.content.startsWith(summaryPrefix) ? message.content : `[User]\n${message.content}`;
    case 'assistant': {
      const calls = message.toolCalls.map(
        (call) =>
          `[Assistant called ${call.name}] ${cut(JSON.stringify(call.input) ?? 'null', maxInputText)}`,
      );
      return [message.text === '' ? [] : [`[Assistant]\n${message.text}`], calls].flat().join('\n');
    }
    case 'tool':
      return `[${message.isError ? 'Error from' : 'Result of'} ${message.name}]\n${cut(message.content, maxToolText)}`;
  }
}

/** The text itself when short; otherwise its head and tail with a note of what was left out. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters left out …]\n${text.slice(-half)}`;
}
