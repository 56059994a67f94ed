import {
  type AgentDefinition,
  type AgentDefinitionCatalogue,
  agentDefinitionFolders,
  discoverAgentDefinitions,
} from '../../settings/agent-definitions.ts';
import { workspaceOf } from '../agent-flags.ts';
import { type CliIo, line } from '../terminal/io.ts';

export type AgentsFlags = { cwd?: string; json?: boolean };

/** The agent definitions `run` would offer in `cwd` (the workspace's folders, then the user's), and the files skipped. */
export function agentDefinitionsOf(cwd: string, env: CliIo['env']): Promise<AgentDefinitionCatalogue> {
  return discoverAgentDefinitions(agentDefinitionFolders(cwd, env));
}

/**
 * `agentchart agents`: each agent definition `run` would offer (name, description, tools, model, mode, file,
 * and what of it is not applied), then each file skipped and why. Exit 0 either way: a bad file is skipped
 * by `run` too, not fatal.
 */
export async function agentsCommand(flags: AgentsFlags, io: CliIo): Promise<number> {
  const cwd = await workspaceOf(io, flags.cwd);
  const catalogue = await agentDefinitionsOf(cwd, io.env);
  if (flags.json) {
    line(io.stdout, JSON.stringify({ workspace: cwd, ...catalogue }));
    return 0;
  }
  const folders = agentDefinitionFolders(cwd, io.env);
  if (catalogue.definitions.length === 0 && catalogue.skipped.length === 0) {
    line(io.stdout, `No agent definitions for ${cwd}. Looked in:`);
    for (const folder of folders) line(io.stdout, `  ${folder}`);
    return 0;
  }
  line(io.stdout, `Agent definitions for ${cwd} (a name found first wins):`);
  for (const definition of catalogue.definitions)
    for (const text of describe(definition)) line(io.stdout, text);
  for (const { file, problem } of catalogue.skipped) line(io.stdout, `  skipped: ${file}: ${problem}`);
  return 0;
}

function describe(definition: AgentDefinition): string[] {
  const { name, description, tools, disallowedTools, model, permissionMode, maxSteps, isolation } =
    definition;
  return [
    `  ${name}: ${description}`,
    `    tools: ${tools === undefined ? "all of the parent's" : tools.length > 0 ? tools.join(', ') : 'none'}`,
    ...(disallowedTools !== undefined ? [`    not: ${disallowedTools.join(', ')}`] : []),
    `    model: ${model ?? "the parent's"}`,
    ...(permissionMode !== undefined ? [`    mode: ${permissionMode} (or the parent's, if stricter)`] : []),
    ...(maxSteps !== undefined ? [`    max steps: ${maxSteps}`] : []),
    ...(isolation !== undefined ? [`    isolation: ${isolation}`] : []),
    ...(definition.output !== undefined ? ['    output: JSON matching its schema'] : []),
    `    file: ${definition.file}`,
    ...(definition.notes ?? []).map((note) => `    note: ${note}`),
  ];
}
