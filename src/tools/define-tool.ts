import { parseHostValue } from '../core/host-schema.ts';
import { ConfigError } from '../errors/config-error.ts';
import { messageOf } from '../errors/describe-value.ts';
import type { ToolSpec, Usage } from '../providers/types.ts';
import type { StopReason } from '../session/types.ts';
import type { BackgroundAgentsPort } from './background-port.ts';
import type { OutputOptions } from './output-schema.ts';
import type { SavedOutputs } from './saved-output.ts';
import type { SkillFolders } from './skill-files.ts';
import {
  describeToolInput,
  type InputOf,
  type JsonSchemaObject,
  type ToolInputSchema,
} from './tool-input.ts';
import { toolDefinitionSchema } from './tool-schema.ts';

export type ToolAccess = 'read' | 'write' | 'exec' | 'none';

/**
 * What a tool returns: text for the model, or text marked as an error the model should read as one.
 *
 * A JavaScript tool may return anything; the runtime gives every value a well-defined result
 * (see `resultOfOutput`): `undefined` and `null` are an `ok` result with empty content, a number, boolean
 * or bigint its decimal text, any other object (an array, `{ content: 5 }`) its JSON text, and a value
 * JSON cannot encode (a circular object, a function, a symbol) an `error` result that says so. A throw
 * or rejection, of any value, is an `error` result with its message.
 */
export type ToolOutput = string | { content: string; isError?: boolean };

export type ToolContext = {
  /** Aborted on cancel, dispose and timeout. A tool must stop promptly when it fires. */
  signal: AbortSignal;
  /** The workspace root. File tools confine every path to it. */
  cwd: string;
  callId: string;
  agentId: string;
  /** Diagnostic lines for the host (not logged, not shown to the model). A non-string is described. */
  log: (message: string) => void;
  /**
   * Live progress for the host's event stream (not logged, not shown to the model). Published as JSON
   * data; a value JSON cannot encode (a circular object, a BigInt) arrives as its description.
   */
  onProgress: (progress: unknown) => void;
  /**
   * Runs a child agent (a subagent) for this call; present when the tool runs inside an agent system.
   * The child is cancelled and disposed when `signal` fires. Rejects with a `ConfigError` when the
   * request is not allowed (depth limit, a tool the caller does not have).
   */
  spawnSubagent?: (request: SubagentRequest) => Promise<SubagentResult>;
  /**
   * Starts, messages, waits for, stops and lists background agents for this call (see
   * `backgroundAgentTools`); present when the tool runs inside an agent system.
   */
  backgroundAgents?: BackgroundAgentsPort;
  /**
   * The most characters of a result the model reads whole (the runtime's `toolOutput.maxChars`). A longer
   * result is saved to a file and shown as its head and tail; a tool that pages its output (`read_file`,
   * `grep`) keeps a page under this, so reading on never produces another cut result.
   */
  maxOutputChars?: number | undefined;
  /** Where the runtime saved long results, so `read_file` can read them (read-only). */
  savedOutputs?: SavedOutputs | undefined;
  /**
   * The agent's skills by name with their folders, read-only: `read_file` and `list_dir` read in them, `bash`
   * runs their scripts, `write_file` and `edit_file` refuse them.
   */
  skillFolders?: SkillFolders | undefined;
};

/**
 * What a tool asks of `ToolContext.spawnSubagent`: one prompt, run by a child agent to the end of its turn;
 * with `output` (see `OutputOptions`), a typed run whose final answer must match that schema.
 */
export type SubagentRequest = OutputOptions & {
  /** A short label for the host (3-5 words). */
  description: string;
  prompt: string;
  /** Names of the caller's tools the child may use (default: all of them). */
  tools?: string[];
  /** The child's system prompt (default: the runtime's default instructions). */
  instructions?: string;
  /**
   * The agent definition the child is made from (`createAgentSystem`'s `agents`): its prompt, and tools,
   * mode, step limit and model that only narrow the caller's; its `output` unless the request has one.
   */
  agentType?: string;
};

/**
 * How a subagent's turn ended: its session id, stop reason, final text and token usage; for a typed run
 * that completed, `output` is the value its schema gave (and `text` the JSON the child answered with).
 */
export type SubagentResult = {
  sessionId: string;
  reason: StopReason;
  text: string;
  usage: Usage;
  output?: unknown;
  /** The tools its agent definition named that the caller lacks: not granted (a definition only narrows). */
  notGranted?: string[];
};

/** A tool the model can call. Build one with `defineTool`. */
export interface Tool<Input = unknown> {
  readonly name: string;
  readonly description: string;
  /** The arguments' schema: zod 4, another Standard Schema (zod 3, valibot, arktype) or a JSON Schema. */
  readonly input: ToolInputSchema<Input>;
  /** The JSON Schema the model is shown, for a Standard Schema that cannot describe itself. */
  readonly jsonSchema?: JsonSchemaObject | undefined;
  /**
   * The JSON Schema the model is given for the input, verbatim. Tools from MCP servers carry the server's
   * own schema here (and validate with it); it wins over `jsonSchema` and over describing `input`.
   */
  readonly inputSchema?: Record<string, unknown>;
  readonly access: ToolAccess;
  /**
   * May this call run beside its neighbours? Anything not safe is a barrier that runs alone.
   * Contract: a function answers `true` or `false`; a throw or any other answer means not safe.
   */
  readonly concurrencySafe: boolean | ((input: Input) => boolean);
  readonly timeoutMs: number | undefined;
  /**
   * Contract: resolves with the output (see `ToolOutput` for what other values become); a throw or a
   * rejection becomes an `error` result the model reads.
   * Honour `ctx.signal`: a tool that ignores it is still reported as aborted, but keeps running.
   */
  run(input: Input, ctx: ToolContext): Promise<ToolOutput>;
}

// Any tool, whatever its input: the variance of `run` needs this at collection boundaries.
// biome-ignore lint/suspicious/noExplicitAny: a heterogeneous tool list cannot name each input type.
export type AnyTool = Tool<any>;

/**
 * Defines a tool. `input` is the arguments' schema: a zod 4 schema (`z.object({...})`), any other Standard
 * Schema (zod 3, valibot, arktype) or a plain JSON Schema object (checked with a draft-07 validator). A
 * Standard Schema that cannot describe itself as JSON Schema (zod 3, valibot) also needs `jsonSchema`, the
 * description the model is shown. Arguments are validated before `run`; invalid arguments become an error
 * result naming what was wrong, so the model can correct itself. The definition itself is checked here: a
 * bad one throws a `ConfigError` naming the field (`defineTool("x"): run must be a function, got undefined`).
 *
 * @example
 * const echo = defineTool({
 *   name: 'echo', description: 'Repeat the text.', access: 'none', concurrencySafe: true,
 *   input: z.object({ text: z.string() }),
 *   run: async ({ text }) => text,
 * });
 */
export function defineTool<Schema extends ToolInputSchema>(definition: {
  name: string;
  description: string;
  input: Schema;
  jsonSchema?: JsonSchemaObject;
  access: ToolAccess;
  concurrencySafe?: boolean | ((input: InputOf<Schema>) => boolean);
  timeoutMs?: number;
  run(input: InputOf<Schema>, ctx: ToolContext): Promise<ToolOutput>;
}): Tool<InputOf<Schema>> {
  const name = (definition as { name?: unknown } | null | undefined)?.name;
  const call = typeof name === 'string' ? `defineTool(${JSON.stringify(name)})` : 'defineTool';
  const parsed = parseHostValue(call, toolDefinitionSchema, definition, 'definition');
  const tool: Tool<InputOf<Schema>> = {
    name: parsed.name,
    description: parsed.description,
    input: parsed.input as ToolInputSchema<InputOf<Schema>>,
    ...(parsed.jsonSchema ? { jsonSchema: parsed.jsonSchema as JsonSchemaObject } : {}),
    access: parsed.access,
    concurrencySafe: parsed.concurrencySafe ?? false,
    timeoutMs: parsed.timeoutMs,
    run: parsed.run as Tool<InputOf<Schema>>['run'],
  };
  try {
    // Described once now, so a schema JSON Schema cannot express fails here, not when an agent starts.
    toolSpec(tool);
  } catch (error) {
    throw new ConfigError(`${call}: input cannot be described to the model: ${messageOf(error)}`, {
      cause: error,
    });
  }
  return tool;
}

const specCache = new WeakMap<AnyTool, ToolSpec>();

/** The model-facing description of a tool: JSON Schema draft-07 of its input, without `$schema`. */
export function toolSpec(tool: AnyTool): ToolSpec {
  const cached = specCache.get(tool);
  if (cached) return cached;
  if (tool.inputSchema !== undefined) {
    const given = { name: tool.name, description: tool.description, inputSchema: tool.inputSchema };
    specCache.set(tool, given);
    return given;
  }
  const schema = describeToolInput(tool.input, tool.jsonSchema);
  const spec = { name: tool.name, description: tool.description, inputSchema: schema };
  specCache.set(tool, spec);
  return spec;
}

/**
 * Whether a validated call may run in parallel with its neighbours. Only `true` means yes: a predicate
 * that throws or answers anything else (`'yes'`, `1`) makes the call a barrier that runs alone.
 */
export function isConcurrencySafe(tool: AnyTool, input: unknown): boolean {
  if (typeof tool.concurrencySafe === 'boolean') return tool.concurrencySafe;
  try {
    return tool.concurrencySafe(input) === true;
  } catch {
    // A predicate that cannot decide is answered conservatively: the call runs alone.
    return false;
  }
}
