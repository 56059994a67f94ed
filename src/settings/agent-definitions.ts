// Agent definitions: Markdown files with front matter that name a kind of subagent — Claude Code's sub-agent
// format (`.claude/agents/*.md`: `name`, `description`, `tools`, `model`, `permissionMode`, the body as the
// child's system prompt) plus agentchart's own fields (`isolation`, `maxSteps`, `output`). Found in the
// workspace's `.agentchart/agents/` and `.claude/agents/`, then the user's. The `task` and `spawn_agent` tools
// start one by name (`agent_type`); what the child gets is decided at launch (runtime/definition-launch.ts).
import { readdir, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { configFileLimit, readRegularText } from '../core/read-limited.ts';
import { messageOf } from '../errors/describe-value.ts';
import { parseOutputOptions } from '../tools/output-schema.ts';
import { skillBody } from '../tools/skill-body.ts';
import type { JsonSchemaObject } from '../tools/tool-input.ts';
import { type DefinitionMode, definitionMode, stepLimit, toolList } from './agent-definition-fields.ts';
import { parseFrontMatter, startsWithFrontMatter } from './front-matter.ts';
import { userConfigFolder } from './settings-file.ts';
import { maxListedDescriptionChars } from './skills.ts';

/** One kind of subagent, as a definition file gave it (recorded whole in `session.start.config.agentDefinitions`). */
export type AgentDefinition = {
  /** What `agent_type` names it by: lowercase letters, digits and hyphens. */
  name: string;
  /** When to use it; listed in the parent's system prompt. */
  description: string;
  /** The child's system prompt: the file's body. */
  instructions: string;
  /** agentchart's names of the tools it may have (absent: all of its parent's). Only narrows the parent's. */
  tools?: string[];
  /** Tools it may not have (`disallowedTools`), in agentchart's names. */
  disallowedTools?: string[];
  /** The model it asks for, as written (`inherit` or none: the parent's). */
  model?: string;
  /** The mode it asks for; it runs in the stricter of this and its parent's. */
  permissionMode?: DefinitionMode;
  /** Where it works: `worktree` (its own git worktree) or `none`. Recorded, not applied yet (docs/many-agents.md, "Agent definitions"). */
  isolation?: 'worktree' | 'none';
  /** The most steps one of its turns may take (never more than the system's subagent limit). */
  maxSteps?: number;
  /** The JSON Schema its final answer must match (read from the file `output` names). */
  output?: JsonSchemaObject;
  /** The file it came from. */
  file: string;
  /** What of the file is not applied, and why. */
  notes?: string[];
};

/** A definition file that was not taken, and why (logged in `session.start` as `config.agentDefinitionsSkipped`). */
export type SkippedAgentDefinition = { file: string; problem: string };

export type AgentDefinitionCatalogue = { definitions: AgentDefinition[]; skipped: SkippedAgentDefinition[] };

/** What the files are read against: the host's tools and models, and agent types the host defines itself. */
export type DefinitionContext = {
  /** Tool names besides the built-in ones that a definition may name (the host's own). */
  knownTools?: readonly string[];
  /** The models a definition's `model` may name (the system's `models`). */
  models?: readonly string[];
  /** Agent types the host gives `spawn_agent` itself: a file of such a name is skipped (the host's wins). */
  reserved?: readonly string[];
};

/**
 * Where definitions are looked for, first place first: a name found earlier wins. The workspace's come
 * before the user's (as Claude Code's project sub-agents win over the user's), agentchart's own folder before
 * Claude Code's at each level.
 */
export function agentDefinitionFolders(cwd: string, env: Record<string, string | undefined>): string[] {
  return [
    path.join(cwd, '.agentchart', 'agents'),
    path.join(cwd, '.claude', 'agents'),
    path.join(userConfigFolder(env), 'agents'),
    path.join(env.HOME || homedir(), '.claude', 'agents'),
  ];
}

/**
 * Finds the definitions in `folders` (each folder's `*.md` files, by name). Skipped, not fatal, with the
 * reason in `skipped`: a file that is not a regular file, over 1 MiB or unreadable, without front matter or
 * with front matter that cannot be read, without `name` or `description`, with a field that cannot be used
 * (an unknown tool, a mode, a step limit, an `output` file that is not a JSON Schema of an object), a name
 * the host defines, and a second definition of a name found already.
 */
export async function discoverAgentDefinitions(
  folders: readonly string[],
  context: DefinitionContext = {},
): Promise<AgentDefinitionCatalogue> {
  const definitions: AgentDefinition[] = [];
  const skipped: SkippedAgentDefinition[] = [];
  const seen = new Set<string>();
  for (const root of folders) {
    // The same folder named twice (HOME is the workspace) is one folder.
    const rootReal = await realpath(root).catch(() => root);
    if (seen.has(rootReal)) continue;
    seen.add(rootReal);
    const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
    const names = entries.filter((entry) => !entry.isDirectory() && entry.name.endsWith('.md'));
    for (const entry of names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const file = path.join(root, entry.name);
      const read = await definitionOf(file, context);
      if ('problem' in read) skipped.push({ file, problem: read.problem });
      else if (context.reserved?.includes(read.name))
        skipped.push({
          file,
          problem: `the host defines an agent type "${read.name}" itself (the host's wins)`,
        });
      else if (definitions.some((definition) => definition.name === read.name))
        skipped.push({ file, problem: `an agent definition named "${read.name}" was found first` });
      else definitions.push(read);
    }
  }
  return { definitions, skipped };
}

const namePattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Claude Code fields agentchart does not apply: said in the definition's notes, never silently dropped. */
const notApplied = ['skills', 'hooks', 'mcpServers', 'memory', 'background', 'effort'];

async function definitionOf(
  file: string,
  context: DefinitionContext,
): Promise<AgentDefinition | { problem: string }> {
  let text: string;
  try {
    const read = await readRegularText(file, configFileLimit);
    if (!('text' in read)) return { problem: `it ${read.refused}` };
    text = read.text;
  } catch (error) {
    return { problem: `it cannot be read: ${messageOf(error)}` };
  }
  if (!startsWithFrontMatter(text))
    return { problem: 'it has no front matter ("---" lines with name and description)' };
  const front = parseFrontMatter(text);
  if ('problem' in front) return front;
  const fields = front.fields;
  const name = fields.name?.trim() ?? '';
  if (!namePattern.test(name))
    return { problem: `its name must be lowercase letters, digits and hyphens, got ${JSON.stringify(name)}` };
  const description = (fields.description ?? '').replace(/\s+/g, ' ').trim();
  if (description === '') return { problem: 'it has no description' };
  const notes = notApplied.filter((key) => fields[key] !== undefined).map((key) => `${key} is not applied`);
  const definition: AgentDefinition = { name, description, instructions: skillBody(text).trim(), file };
  const known = context.knownTools ?? [];
  for (const key of ['tools', 'disallowedTools'] as const) {
    if (fields[key] === undefined) continue;
    const list = toolList(key, fields[key], known);
    if ('problem' in list) return list;
    definition[key] = list.tools;
    notes.push(...list.notes);
  }
  const model = fields.model?.trim();
  if (model !== undefined && model !== '' && model !== 'inherit') {
    definition.model = model;
    if (!context.models?.includes(model))
      notes.push(
        `model ${JSON.stringify(model)} is not one of the system's models: the parent's model is used`,
      );
  }
  const mode = fields.permissionMode?.trim();
  if (mode !== undefined) {
    const parsed = definitionMode(mode);
    if (typeof parsed === 'object') return parsed;
    definition.permissionMode = parsed;
  }
  const isolation = fields.isolation?.trim();
  if (isolation !== undefined) {
    if (isolation !== 'worktree' && isolation !== 'none')
      return { problem: `isolation must be worktree or none, got ${JSON.stringify(isolation)}` };
    definition.isolation = isolation;
  }
  const steps = fields.maxSteps ?? fields.maxTurns;
  if (steps !== undefined) {
    const limit = stepLimit(fields.maxSteps !== undefined ? 'maxSteps' : 'maxTurns', steps.trim());
    if (typeof limit === 'object') return limit;
    definition.maxSteps = limit;
  }
  if (fields.output !== undefined) {
    const output = await outputSchema(path.resolve(path.dirname(file), fields.output.trim()));
    if ('problem' in output) return output;
    definition.output = output.schema;
  }
  return notes.length > 0 ? { ...definition, notes } : definition;
}

/** The JSON Schema of an object in `file` (a definition's `output`), or why it cannot be one. */
async function outputSchema(file: string): Promise<{ schema: JsonSchemaObject } | { problem: string }> {
  let schema: unknown;
  try {
    const read = await readRegularText(file, configFileLimit);
    if (!('text' in read)) return { problem: `its output file ${file}: it ${read.refused}` };
    schema = JSON.parse(read.text);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { problem: `its output file ${file} does not exist` };
    return { problem: `its output file ${file} cannot be read as JSON: ${messageOf(error)}` };
  }
  try {
    parseOutputOptions('the agent definition', { output: schema });
  } catch (error) {
    return { problem: `its output file ${file}: ${messageOf(error)}` };
  }
  return { schema: schema as JsonSchemaObject };
}

/**
 * The system prompt's part that lists the definitions (empty without any): what `agent_type` the `task`
 * tool (and `spawn_agent`) takes, each with its description cut where skills' are.
 */
export function agentCatalogueText(definitions: readonly AgentDefinition[]): string {
  if (definitions.length === 0) return '';
  const lines = definitions.map((definition) => {
    const text = definition.description;
    const cut =
      text.length > maxListedDescriptionChars ? `${text.slice(0, maxListedDescriptionChars - 1)}…` : text;
    return `- ${definition.name}: ${cut}`;
  });
  return (
    '# Agent types\n' +
    'When a task matches one of these descriptions, delegate it by giving its name as `agent_type` to the ' +
    'task tool (or spawn_agent): the agent starts with its own instructions and tools.\n' +
    lines.join('\n')
  );
}
