// An MCP server's tool as an agentchart tool: named `mcp__<server>__<tool>`, the server's JSON Schema given
// to the model as it is and checked with the SDK's validator (Ajv), never converted through zod;
// `readOnlyHint` makes it a `read` tool that runs beside its neighbours, anything else a `write` tool
// that runs alone and asks where writes ask.
import { z } from 'zod/v4';
import { messageOf } from '../errors/describe-value.ts';
import { maxDataDepth } from '../session/check-writable.ts';
import type { McpToolEntry } from '../session/types.ts';
import type { AnyTool, ToolContext, ToolOutput } from '../tools/define-tool.ts';
import { schemaValidators } from './schema-validators.ts';
import { mcpToolName } from './tool-names.ts';

/**
 * What agentchart keeps of a server's tool (name `mcp__<server>__<tool>`, the server's own name, schema,
 * access): enough to offer it, to call it and to replay it. `session.start` and `mcp.tools` log these, so a
 * replay offers the same tools without starting the server.
 */
export type McpToolRecord = McpToolEntry;

/** A tool as `tools/list` describes it (only the fields agentchart reads). */
export type ListedTool = {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean | undefined } | undefined;
  execution?: { taskSupport?: string | undefined } | undefined;
};

/** Calls one tool of one server; resolves with what the model reads (failures are error outputs). */
export type McpCall = (
  server: string,
  tool: string,
  input: unknown,
  context: Pick<ToolContext, 'signal' | 'onProgress' | 'callId'>,
) => Promise<ToolOutput>;

/** A tool the server listed that agentchart does not offer, and why. */
export type SkippedTool = { tool: string; reason: string };

/**
 * How deep a tool's input schema may nest. Schemas are logged inside `session.start` and `mcp.tools`, a
 * few levels below an event's `data`, whose depth the log bounds (`maxDataDepth`); half of it leaves room
 * for that and is still far deeper than any real tool's arguments.
 */
export const maxSchemaDepth = maxDataDepth / 2;

/**
 * The record of a listed tool, or why it cannot be offered: a tool that only runs as an MCP task, or one
 * whose schema nests deeper than a session log holds (it would make `session.start` unwritable).
 */
export function recordOf(server: string, listed: ListedTool): McpToolRecord | SkippedTool {
  if (listed.execution?.taskSupport === 'required')
    return { tool: listed.name, reason: 'it runs only as an MCP task, which agentchart does not call' };
  if (nestsDeeperThan(listed.inputSchema, maxSchemaDepth))
    return {
      tool: listed.name,
      reason: `its input schema nests more than ${maxSchemaDepth} levels deep, more than a session log holds`,
    };
  return {
    name: mcpToolName(server, listed.name),
    tool: listed.name,
    description: listed.description ?? listed.title ?? '',
    inputSchema: listed.inputSchema,
    access: listed.annotations?.readOnlyHint === true ? 'read' : 'write',
  };
}

/** Whether `value` has objects or arrays nested more than `limit` deep; a loop, so no depth overflows it. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    if (next.depth > limit) return true;
    for (const item of Object.values(next.value)) pending.push({ value: item, depth: next.depth + 1 });
  }
  return false;
}

/**
 * The tool the runtime runs for a record, once `loadSchemaValidators` has resolved. Throws when the schema
 * cannot be compiled (the server's problem: the tool is then not offered). Validation reads a copy without `$schema`: Ajv knows draft-07,
 * and a server that names another draft still means the same keywords for a tool's arguments.
 */
export function mcpTool(server: string, record: McpToolRecord, call: McpCall): AnyTool {
  const { $schema: _dialect, ...checked } = record.inputSchema;
  let validate: (input: unknown) => { valid: boolean; errorMessage?: string | undefined };
  try {
    validate = schemaValidators().getValidator(checked as never);
  } catch (error) {
    throw new Error(`its input schema cannot be used: ${messageOf(error)}`, { cause: error });
  }
  const input = z.unknown().superRefine((value, context) => {
    const verdict = validate(value);
    if (!verdict.valid)
      context.addIssue({ code: 'custom', message: verdict.errorMessage ?? 'invalid input' });
  });
  return {
    name: record.name,
    description: record.description,
    input,
    inputSchema: record.inputSchema,
    access: record.access,
    concurrencySafe: record.access === 'read',
    timeoutMs: undefined,
    run: (args: unknown, context: ToolContext) => call(server, record.tool, args, context),
  };
}
