// A typed turn's output format on the Messages API. Models with structured outputs get
// `output_config.format` (a JSON Schema, reshaped by the SDK's own `transformJSONSchema` into the subset the
// API takes); other models, and schemas that subset cannot hold, get a final-answer tool whose input is the
// answer. The stream state turns that tool's call back into the answer's text (anthropic-stream.ts), so the
// runtime reads every answer the same way.
import type { MessageCreateParamsStreaming, Tool } from '@anthropic-ai/sdk/resources/messages';
import type { OutputFormat } from './types.ts';

/** How the adapter asks for a typed turn's output: the API's structured outputs, or a final-answer tool. */
export type StructuredOutputs = 'native' | 'tool';

/** The name of the final-answer tool; its input is the answer. */
export const finalAnswerTool = 'final_answer';

/**
 * The models that take `output_config.format` (generally available; read on platform.claude.com on
 * 2026-12-09), by id prefix, dated snapshots included. Any other model gets the final-answer tool unless
 * the host says `structuredOutputs: 'native'`.
 */
export const structuredOutputModels = [
  'claude-opus-4-5',
  'claude-opus-4-6',
  'claude-opus-4-7',
  'claude-opus-4-8',
  'claude-sonnet-4-5',
  'claude-sonnet-4-6',
  'claude-haiku-4-5',
] as const;

/** The way `model` is asked for output, unless the host chose one. */
export function structuredOutputsFor(
  model: string,
  chosen: StructuredOutputs | undefined,
): StructuredOutputs {
  if (chosen !== undefined) return chosen;
  return structuredOutputModels.some((prefix) => model.startsWith(prefix)) ? 'native' : 'tool';
}

/** Reshapes a JSON Schema into what `output_config.format` takes; throws for one it cannot hold. */
export type SchemaTransform = (schema: Record<string, unknown>) => Record<string, unknown>;

/**
 * The request with `output` asked for: `output_config.format` in native mode (when the schema can be
 * reshaped), else the final-answer tool after the request's own tools. Says which it used, so the stream
 * knows whether a call of the final-answer tool is the answer.
 */
export function withOutputFormat(
  params: MessageCreateParamsStreaming,
  output: OutputFormat,
  how: { mode: StructuredOutputs; transform: SchemaTransform },
): { params: MessageCreateParamsStreaming; mode: StructuredOutputs } {
  if (how.mode === 'native') {
    const schema = reshaped(output.schema, how.transform);
    if (schema !== undefined)
      return {
        params: { ...params, output_config: { format: { type: 'json_schema', schema } } },
        mode: 'native',
      };
  }
  const tool: Tool = {
    name: finalAnswerTool,
    description:
      'Give your final answer by calling this tool once you are done: its input is the answer, and it must ' +
      'match this schema. Call your other tools first, as needed; do not answer in plain text.',
    input_schema: { ...output.schema, type: 'object' },
  };
  return { params: { ...params, tools: [...(params.tools ?? []), tool] }, mode: 'tool' };
}

function reshaped(schema: Record<string, unknown>, transform: SchemaTransform) {
  try {
    return transform(schema);
  } catch {
    // A schema the structured-outputs subset cannot hold (a property of any type) still gets an answer of
    // its shape through the final-answer tool, whose input schema may be any JSON Schema.
    return undefined;
  }
}
