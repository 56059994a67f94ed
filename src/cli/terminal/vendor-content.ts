// What an assistant message holds besides its text and tool calls, in a few transcript lines: tools the
// vendor's server ran (Anthropic server tools and MCP, Responses web search, code interpreter and MCP, AI
// SDK provider-executed calls), their results, approval requests the runtime declined, compaction, and the
// sources the model cited. Thinking, reasoning items and the vendor's form of text and calls say nothing
// new here and are left out.
import type { Citation, ProviderPart } from '../../providers/types.ts';

type Fields = Record<string, unknown>;

const silentTypes = new Set([
  'text',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'reasoning',
  'message',
  'function_call',
  'custom_tool_call',
  'tool-call',
  'custom',
]);
const maxSources = 8;

/** The transcript lines for `parts` and `citations` (none when there is nothing to say). */
export function vendorContentLines(
  parts: readonly ProviderPart[] | undefined,
  citations: readonly Citation[] | undefined,
): string[] {
  const lines = (parts ?? []).flatMap((part) => partLine(part));
  const sources = distinctSources(citations ?? []);
  if (sources.length > 0) {
    lines.push(`sources (${sources.length}):`);
    for (const [index, source] of sources.slice(0, maxSources).entries()) {
      lines.push(`  [${index + 1}] ${source}`);
    }
    if (sources.length > maxSources) lines.push(`  … ${sources.length - maxSources} more`);
  }
  return lines;
}

function partLine(part: ProviderPart): string[] {
  const data = (typeof part.data === 'object' && part.data !== null ? part.data : {}) as Fields;
  const type = part.type;
  if (type === 'tool-call') {
    return data.providerExecuted === true
      ? [`⚙ ${String(data.toolName)} (run by the provider)${brief(data.input)}`]
      : [];
  }
  if (silentTypes.has(type)) return [];
  if (type === 'server_tool_use' || type === 'mcp_tool_use') {
    const server = typeof data.server_name === 'string' ? `${data.server_name}/` : '';
    return [`⚙ ${server}${String(data.name)} (run by the provider)${brief(data.input)}`];
  }
  if (type === 'mcp_approval_request' || type === 'tool-approval-request') {
    const name = data.name ?? data.toolCallId;
    return [
      `? ${String(name)} asked for approval on the provider's side: declined (nothing here can approve it)`,
    ];
  }
  if (type === 'compaction') return ['(the provider compacted the context)'];
  if (type.endsWith('_tool_result') || type === 'tool-result') {
    const failed = isFailure(data.content ?? data.output);
    return [`  ← ${type === 'tool-result' ? String(data.toolName) : type}${failed ? ' (error)' : ''}`];
  }
  if (type.endsWith('_call') || type === 'mcp_list_tools') {
    // Responses items: web_search_call, code_interpreter_call, file_search_call, mcp_call, …
    const action = data.action as Fields | undefined;
    const query = typeof action?.query === 'string' ? `: ${action.query}` : '';
    return [`⚙ ${type.replace(/_call$/, '').replaceAll('_', ' ')} (run by the provider)${query}`];
  }
  return [`(${type} from the provider, kept in the log)`];
}

function brief(input: unknown): string {
  if (input === undefined) return '';
  const text = JSON.stringify(input);
  return ` ${text.length > 80 ? `${text.slice(0, 79)}…` : text}`;
}

function isFailure(content: unknown): boolean {
  if (typeof content !== 'object' || content === null) return false;
  const type = (content as Fields).type;
  return typeof type === 'string' && /error/.test(type);
}

function distinctSources(citations: readonly Citation[]): string[] {
  const seen = new Set<string>();
  for (const citation of citations) {
    const where = citation.url ?? citation.fileId ?? '';
    const title = citation.title ?? '';
    seen.add(title && where ? `${title} — ${where}` : title || where || citation.source);
  }
  return [...seen];
}
