// What `aiSdk` accepts, checked where the options enter: an option it does not know is an error, never
// silently ignored, and AI SDK tools (`tools`, as `streamText` takes them) are refused with the reason.
import type { LanguageModelV3, LanguageModelV4, SharedV4ProviderOptions } from '@ai-sdk/provider';
import { z } from 'zod/v4';
import type { Clock } from '../core/clock.ts';
import { clockSchema, must, parseHostValue, positiveInteger } from '../core/host-schema.ts';
import { ConfigError } from '../errors/config-error.ts';
import { type AnthropicCacheOption, cacheControlSchema } from './anthropic-cache.ts';

const optionsSchema = z.strictObject(
  {
    model: z.custom<LanguageModelV4 | LanguageModelV3>(
      (value) => typeof value === 'object' && value !== null,
      must('an AI SDK language model'),
    ),
    maxTokens: positiveInteger.optional(),
    providerOptions: z
      .record(z.string(), z.record(z.string(), z.unknown()), must('an object of options by provider name'))
      .optional(),
    contextWindow: positiveInteger.optional(),
    clock: clockSchema.optional(),
    cacheControl: cacheControlSchema.optional(),
    // Checked by `parsePrices`, which says what prices are.
    prices: z.unknown().optional(),
  },
  must('an object with a model'),
);

/** What `aiSdk` works with once its options are parsed. */
export type ParsedAiSdkOptions = {
  model: LanguageModelV4 | LanguageModelV3;
  maxTokens?: number | undefined;
  providerOptions?: SharedV4ProviderOptions | undefined;
  contextWindow?: number | undefined;
  clock?: Clock | undefined;
  cacheControl?: AnthropicCacheOption | undefined;
  prices?: unknown;
};

/**
 * Parses `aiSdk`'s options once, where they enter.
 *
 * @throws ConfigError for `tools` (see `toolsRefusal`), for any option `aiSdk` does not know
 * (`aiSdk: unknown option "maxToken" (did you mean "maxTokens"?)`) and for a value of the wrong type.
 */
export function parseAiSdkOptions(options: unknown): ParsedAiSdkOptions {
  if (options === null || typeof options !== 'object') {
    throw new ConfigError(`aiSdk: the options must be an object with a model, got ${typeof options}`);
  }
  const { tools, ...rest } = options as Record<string, unknown>;
  if (tools !== undefined) throw new ConfigError(toolsRefusal(tools));
  return parseHostValue('aiSdk', optionsSchema, rest) as ParsedAiSdkOptions;
}

type GivenTool = { name: string; id?: string };

/**
 * Why `tools` is refused, naming each tool. A provider-defined tool (`openai.tools.webSearch()`,
 * `type: 'provider'`, or `'provider-defined'` in older specifications) runs on the vendor's servers: no
 * permission check or hook of agentchart sees its calls, and for a log to show what the model was offered
 * its arguments would have to be written down, credentials included (an MCP connector's `authorization`).
 * A function tool belongs in the agent's own tools, where permissions, hooks and the log see it.
 */
function toolsRefusal(tools: unknown): string {
  const given = givenTools(tools);
  const vendorRun = given.filter((tool) => tool.id !== undefined);
  const described = given.map((tool) =>
    tool.id !== undefined
      ? `"${tool.name}" (${tool.id}) is a tool the vendor runs`
      : `"${tool.name}" is a function tool`,
  );
  const what = described.length > 0 ? `${described.join('; ')}. ` : '';
  const why =
    vendorRun.length > 0
      ? 'agentchart does not offer tools the vendor runs: their calls run on its servers without ' +
        "agentchart's permission check or hooks, and the session log would have to record their arguments " +
        '(credentials among them) to show what the model was offered. '
      : '';
  return (
    `aiSdk: option "tools" is refused: ${what}${why}` +
    "The agent's tools reach the model from createAgent({ tools }), made with defineTool."
  );
}

/** Each tool of a tool set (`{ name: tool }`, as `streamText` takes it) or of a specification tool list. */
function givenTools(tools: unknown): GivenTool[] {
  if (tools === null || typeof tools !== 'object') return [];
  const entries: [string, unknown][] = Array.isArray(tools)
    ? tools.map((tool, index) => [nameOf(tool) ?? `tools[${index}]`, tool])
    : Object.entries(tools);
  return entries.map(([name, tool]) => {
    const id = vendorToolId(tool);
    return id === undefined ? { name } : { name, id };
  });
}

function nameOf(tool: unknown): string | undefined {
  const name = (tool as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : undefined;
}

function vendorToolId(tool: unknown): string | undefined {
  const { type, id } = (tool ?? {}) as { type?: unknown; id?: unknown };
  if (type !== 'provider' && type !== 'provider-defined') return undefined;
  return typeof id === 'string' ? id : 'no id';
}
