// What `aiSdk` accepts, checked where the options enter: an option it does not know is an error, never
// silently ignored, and AI SDK tools (`tools`, as `streamText` takes them) are refused with the reason.
import { ConfigError } from '../errors/config-error.ts';

const knownOptions: ReadonlySet<string> = new Set([
  'model',
  'maxTokens',
  'providerOptions',
  'contextWindow',
  'clock',
  'cacheControl',
  'prices',
]);

/** @throws ConfigError for `tools` (see `toolsRefusal`) and for any option `aiSdk` does not know. */
export function checkAiSdkOptions(options: unknown): void {
  if (options === null || typeof options !== 'object') {
    throw new ConfigError(`aiSdk: the options must be an object with a model, got ${typeof options}`);
  }
  const given = Object.entries(options).filter(([, value]) => value !== undefined);
  const tools = given.find(([key]) => key === 'tools');
  if (tools) throw new ConfigError(toolsRefusal(tools[1]));
  const unknown = given.map(([key]) => key).filter((key) => !knownOptions.has(key));
  if (unknown.length > 0) {
    const names = unknown.map((key) => `"${key}"`).join(', ');
    throw new ConfigError(
      `aiSdk: unknown option${unknown.length > 1 ? 's' : ''} ${names} (it takes ${[...knownOptions].join(', ')})`,
    );
  }
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
