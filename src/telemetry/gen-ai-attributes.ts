// Span and attribute names of the OpenTelemetry semantic conventions for generative AI (status:
// development), as read on 2026-12-07 from semantic-conventions v1.41.0, docs/gen-ai/gen-ai-spans.md
// ("Inference": span name `{gen_ai.operation.name} {gen_ai.request.model}`, kind CLIENT; a retried request
// is one span covering all attempts) and docs/gen-ai/gen-ai-agent-spans.md ("Invoke agent internal span":
// `invoke_agent {gen_ai.agent.name}`, kind INTERNAL; "Execute tool span": `execute_tool {gen_ai.tool.name}`,
// kind INTERNAL). Names of agentchart's own (turn, step, hook, approval, compaction) start `agentchart.`.
import type { Usage } from '../providers/types.ts';

export const genAi = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheCreationTokens: 'gen_ai.usage.cache_creation.input_tokens',
  agentId: 'gen_ai.agent.id',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  errorType: 'error.type',
} as const;

/** The usage attributes of one request or turn; cache counts only when there were some. */
export function usageAttributes(usage: Usage): Record<string, number> {
  return {
    [genAi.inputTokens]: usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
    [genAi.outputTokens]: usage.outputTokens,
    ...(usage.cacheReadTokens > 0 ? { [genAi.cacheReadTokens]: usage.cacheReadTokens } : {}),
    ...(usage.cacheWriteTokens > 0 ? { [genAi.cacheCreationTokens]: usage.cacheWriteTokens } : {}),
  };
}

/** A model answer as `gen_ai.output.messages` (recorded only when the host opts in to content). */
export function outputMessages(
  text: string,
  toolCalls: { id: string; name: string; input: unknown }[],
): string {
  const parts = [
    ...(text.length > 0 ? [{ type: 'text', content: text }] : []),
    ...toolCalls.map((call) => ({ type: 'tool_call', id: call.id, name: call.name, arguments: call.input })),
  ];
  return JSON.stringify([{ role: 'assistant', parts }]);
}

/** User messages as `gen_ai.input.messages`. */
export function inputMessages(texts: readonly string[]): string {
  return JSON.stringify(texts.map((content) => ({ role: 'user', parts: [{ type: 'text', content }] })));
}
