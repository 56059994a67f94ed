// A provider-neutral request as the AI SDK's prompt (`LanguageModelV4Prompt`; v3 models read the same
// shapes for everything agentchart sends). Assistant messages that kept their content piece by piece go
// back in that order with each piece's provider options; approval requests are declined in a tool message.
import type {
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultPart,
} from '@ai-sdk/provider';
import type { KeptContent } from './ai-sdk-stream.ts';
import type { ModelMessage, ModelRequest, ProviderPart, ToolSpec } from './types.ts';

type AssistantMessage = Extract<ModelMessage, { role: 'assistant' }>;
type AssistantContent = Extract<LanguageModelV4Message, { role: 'assistant' }>['content'][number];
type ToolContent = Extract<LanguageModelV4Message, { role: 'tool' }>['content'][number];

/** Why every approval request is declined: nobody can approve what runs on the vendor's side. */
export const approvalRefusal =
  'agentchart runs no tools on the model provider’s side and cannot approve them';

/** The prompt for `request`, reading back provider parts tagged `partProvider`. */
export function toPrompt(
  request: ModelRequest,
  context: { partProvider: string; version: 'v3' | 'v4' },
): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [];
  if (request.system !== '') prompt.push({ role: 'system', content: request.system });
  for (const message of request.messages) {
    if (message.role === 'user') {
      prompt.push({ role: 'user', content: [{ type: 'text', text: message.content }] });
    } else if (message.role === 'tool') {
      toolMessage(prompt).push(toolResult(message));
    } else {
      const parts = (message.providerParts ?? []).filter((part) => part.provider === context.partProvider);
      const content = assistantContent(message, parts, context.version);
      if (content.length > 0) prompt.push({ role: 'assistant', content });
      const approvals = parts.filter((part) => part.type === 'tool-approval-request');
      for (const part of approvals) {
        const { approvalId } = part.data as { approvalId: string };
        toolMessage(prompt).push({
          type: 'tool-approval-response',
          approvalId,
          approved: false,
          reason: approvalRefusal,
        });
      }
    }
  }
  return prompt;
}

/** The tools as function tools; their schemas are already JSON Schema. */
export function toTools(tools: readonly ToolSpec[]): LanguageModelV4FunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as LanguageModelV4FunctionTool['inputSchema'],
  }));
}

/** The tool message at the end of the prompt, opened when the last message is not one. */
function toolMessage(prompt: LanguageModelV4Prompt): ToolContent[] {
  const last = prompt.at(-1);
  if (last?.role === 'tool') return last.content;
  const message: LanguageModelV4Message = { role: 'tool', content: [] };
  prompt.push(message);
  return message.content;
}

function toolResult(message: Extract<ModelMessage, { role: 'tool' }>): LanguageModelV4ToolResultPart {
  return {
    type: 'tool-result',
    toolCallId: message.callId,
    toolName: message.name,
    output: message.isError
      ? { type: 'error-text', value: message.content }
      : { type: 'text', value: message.content },
  };
}

/**
 * Pieces kept in order go back as they came (tool calls with the input the log holds, which is what ran);
 * otherwise reasoning first, then the text, then the calls. Logged calls no piece names come last.
 */
function assistantContent(
  message: AssistantMessage,
  parts: readonly ProviderPart[],
  version: 'v3' | 'v4',
): AssistantContent[] {
  const calls = new Map(message.toolCalls.map((call) => [call.id, call]));
  const content: AssistantContent[] = [];
  const ordered = parts.some((part) => part.type !== 'reasoning');
  for (const part of parts) {
    const piece = part.data as KeptContent;
    if (piece.type === 'tool-approval-request') continue;
    if (piece.type === 'tool-call' && piece.providerExecuted !== true) {
      const call = calls.get(String(piece.toolCallId));
      if (!call) continue;
      calls.delete(call.id);
      content.push({ ...piece, input: call.input } as AssistantContent);
      continue;
    }
    if (piece.type === 'text' && piece.text === '') continue;
    content.push((piece.type === 'file' ? filePiece(piece, version) : piece) as unknown as AssistantContent);
  }
  if (!ordered && message.text !== '') content.push({ type: 'text', text: message.text });
  for (const call of calls.values()) {
    content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.input });
  }
  return content;
}

/** A kept file as the prompt wants it: a URL object again, and for v3 models the bare data or URL. */
function filePiece(piece: KeptContent, version: 'v3' | 'v4'): KeptContent {
  const data = piece.data as { type?: string; data?: unknown; url?: unknown } | undefined;
  if (data?.type === 'url' && typeof data.url === 'string') {
    const url = new URL(data.url);
    return { ...piece, data: version === 'v4' ? { type: 'url', url } : url };
  }
  if (version === 'v3' && data?.type === 'data') return { ...piece, data: data.data };
  return piece;
}
