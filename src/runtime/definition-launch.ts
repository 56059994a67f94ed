// What an agent definition (settings/agent-definitions.ts) makes of a child's launch. A definition only ever
// narrows what the parent has: its tools are intersected with the parent's (a tool the parent lacks is not
// granted, and the caller is told), its mode is applied only where it is stricter, its step limit only where
// it is lower; its model is one of the system's models by name, else the parent's.
import { ConfigError } from '../errors/config-error.ts';
import { type PermissionMode, stricterMode } from '../permissions/modes.ts';
import type { Provider } from '../providers/types.ts';
import type { AgentDefinition } from '../settings/agent-definitions.ts';
import type { AnyTool } from '../tools/define-tool.ts';

/** The definition `name` among the parent's; a `ConfigError` the model reads when there is none. */
export function definitionNamed(definitions: readonly AgentDefinition[], name: string): AgentDefinition {
  const definition = definitions.find((entry) => entry.name === name);
  if (definition !== undefined) return definition;
  const known = definitions.map((entry) => entry.name);
  throw new ConfigError(
    `there is no agent type "${name}" (${known.length > 0 ? `types: ${known.join(', ')}` : 'no types are defined: leave agent_type out'})`,
  );
}

/**
 * The tools a child of `definition` gets out of `offered` (what its parent would give it): those the
 * definition names, less those it disallows. `send_message` stays: it is a background child's only way to
 * answer. `notGranted` are the names the definition asks for that the parent is not offered.
 */
export function definitionTools(
  offered: readonly AnyTool[],
  parentToolNames: readonly string[],
  definition: AgentDefinition,
): { tools: AnyTool[]; notGranted: string[] } {
  const named = definition.tools;
  const denied = definition.disallowedTools ?? [];
  const tools = offered.filter(
    (tool) =>
      (named === undefined || named.includes(tool.name) || tool.name === 'send_message') &&
      !denied.includes(tool.name),
  );
  const notGranted = (named ?? []).filter((name) => !parentToolNames.includes(name));
  return { tools, notGranted };
}

/** The mode a child of `definition` runs in: the stricter of what it asks (`dont-ask` is `default`) and `mode`. */
export function definitionModeUnder(
  mode: PermissionMode,
  definition: AgentDefinition | undefined,
): PermissionMode {
  const asked = definition?.permissionMode;
  if (asked === undefined) return mode;
  return stricterMode(mode, asked === 'dont-ask' ? 'default' : asked);
}

/** The model a child of `definition` runs on: the system's model of that name, else its parent's. */
export function definitionModel(
  parent: Provider,
  definition: AgentDefinition | undefined,
  models: Readonly<Record<string, Provider>>,
): Provider {
  const name = definition?.model;
  return name !== undefined && Object.hasOwn(models, name) ? models[name]! : parent;
}
