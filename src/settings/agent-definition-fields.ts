// The fields of an agent definition file that need more than a string: its tool lists (Claude Code's names
// or agentchart's), its permission mode (Claude Code's spelling or agentchart's) and its step limit. Each
// reading either gives a value, with notes on what was dropped, or says why the file cannot be used.
import { nearestKey } from '../core/nearest-key.ts';
import type { PermissionMode } from '../permissions/modes.ts';
import { backgroundToolNames } from '../tools/background-agents.ts';
import {
  builtInToolNames,
  claudeToolNames,
  isClaudeOnlyTool,
  toolOfClaudeName,
  toolsOfClaudeName,
} from '../tools/claude-code-names.ts';

/**
 * The mode a definition asks for: an agentchart mode, or `dont-ask` (Claude Code's `dontAsk`: nothing is put
 * to a person; a call that would ask is denied). A child never runs looser than its parent, whatever it asks.
 */
export type DefinitionMode = PermissionMode | 'dont-ask';

/** A list of tool names in agentchart's words, with what was left out and why. */
export type ToolList = { tools: string[]; notes: string[] };

/** The items of a written list: `Read, Grep`, `[Read, Grep]`, or a YAML block list (`- Read`). */
export function listItems(text: string): string[] {
  const flat = text.trim().replace(/^\[(.*)\]$/s, '$1');
  return flat
    .split(/[,\n]/)
    .map((item) =>
      item
        .trim()
        .replace(/^-\s*/, '')
        .replace(/^(["'])(.*)\1$/, '$2')
        .trim(),
    )
    .filter((item) => item !== '');
}

/**
 * A definition's `tools` or `disallowedTools` in agentchart's names. In `tools` (what is granted) a Claude
 * Code name is its one counterpart (`Read` is read_file, `Edit` edit_file); in `disallowedTools` (what is
 * taken away) it is every tool it covers in a rule (`Read` is read_file, grep, glob and list_dir; `Edit`
 * also write_file): either way the reading is the narrower. agentchart's own tools' names, the host's tools
 * (`known`) and MCP tools (`mcp__…`) stand for themselves. A Claude Code tool agentchart lacks (`WebFetch`)
 * and `Agent(type)` (agentchart cannot limit which types a child starts) are left out with a note: leaving a
 * tool out only narrows (in `disallowedTools`, `Agent(type)` takes `task` away whole). Any other name is a
 * problem: a typo must not pass unnoticed.
 */
export function toolList(
  key: 'tools' | 'disallowedTools',
  text: string,
  known: readonly string[],
): ToolList | { problem: string } {
  const tools: string[] = [];
  const notes: string[] = [];
  const names = new Set([...builtInToolNames, ...backgroundToolNames, ...known]);
  for (const name of listItems(text)) {
    if (/^(Agent|Task)\(.*\)$/.test(name)) {
      // agentchart cannot tell agent types apart in a list: granting none, or taking all, is the narrower.
      if (key === 'disallowedTools' && !tools.includes('task')) tools.push('task');
      notes.push(
        key === 'tools'
          ? `tools: ${name} is left out (agentchart cannot limit the agent types a child starts)`
          : `disallowedTools: ${name} takes task away whole (agentchart cannot take one agent type away)`,
      );
      continue;
    }
    const counterpart = toolOfClaudeName(name);
    const claude =
      key === 'tools' ? (counterpart !== undefined ? [counterpart] : []) : toolsOfClaudeName(name);
    const mapped = claude.length > 0 ? claude : names.has(name) || name.startsWith('mcp__') ? [name] : [];
    if (mapped.length > 0) {
      for (const tool of mapped) if (!tools.includes(tool)) tools.push(tool);
    } else if (isClaudeOnlyTool(name)) {
      notes.push(`${key}: ${name} is left out (agentchart has no such tool)`);
    } else {
      const near = nearestKey(name, [...claudeToolNames, ...names]);
      return {
        problem: `${key} names a tool agentchart does not know: ${name}${near ? ` (did you mean ${near}?)` : ''}`,
      };
    }
  }
  return { tools, notes };
}

const modes: Readonly<Record<string, DefinitionMode>> = {
  default: 'default',
  plan: 'plan',
  acceptEdits: 'accept-edits',
  'accept-edits': 'accept-edits',
  bypassPermissions: 'bypass',
  bypass: 'bypass',
  dontAsk: 'dont-ask',
};

/** A definition's `permissionMode` (Claude Code's `acceptEdits`, `bypassPermissions`, `dontAsk`, or ours). */
export function definitionMode(text: string): DefinitionMode | { problem: string } {
  const mode = Object.hasOwn(modes, text) ? modes[text] : undefined;
  if (mode !== undefined) return mode;
  return {
    problem: `permissionMode must be one of ${Object.keys(modes).join(', ')}, got ${JSON.stringify(text)}`,
  };
}

/** A definition's `maxSteps` (or Claude Code's `maxTurns`): a whole number above zero. */
export function stepLimit(key: string, text: string): number | { problem: string } {
  const value = Number(text);
  if (/^\d+$/.test(text) && Number.isSafeInteger(value) && value > 0) return value;
  return { problem: `${key} must be a whole number above zero, got ${JSON.stringify(text)}` };
}
