// The MCP SDK's JSON Schema validator (Ajv), which checks an MCP tool's arguments against the schema its
// server listed. Loaded the first time an agent starts MCP servers (or replays recorded ones), so a
// program that uses none never loads the SDK: `import('agentchart')` stays free of it.
import type { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

let loading: Promise<AjvJsonSchemaValidator> | undefined;
let loaded: AjvJsonSchemaValidator | undefined;

/** Loads the validator once; every MCP tool source awaits this before it builds a tool. */
export function loadSchemaValidators(): Promise<AjvJsonSchemaValidator> {
  loading ??= import('@modelcontextprotocol/sdk/validation/ajv').then(({ AjvJsonSchemaValidator }) => {
    loaded = new AjvJsonSchemaValidator();
    return loaded;
  });
  return loading;
}

/**
 * The validator, once `loadSchemaValidators` has resolved. Contract: throws before that, which is a
 * wiring error (a tool source that builds a tool before it connected), never a condition to handle.
 */
export function schemaValidators(): AjvJsonSchemaValidator {
  if (loaded === undefined) throw new Error('the MCP schema validator is used before it was loaded');
  return loaded;
}
