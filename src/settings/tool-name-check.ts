// A permission rule or a hook matcher that names no tool would guard nothing: a deny rule `Raed(./.env)`
// copied with a typo lets the read through without a word. This check runs where the tools are known — at
// system creation (the host's own tools count) and in the CLI's settings load — and sorts what it finds:
// a name of nothing is an error; a pattern (a rule's `*` glob, a matcher's regular expression) that matches
// no tool today, or a name under an MCP server that is not configured, is a warning (servers come and go
// with trust flags, and their tools are only known once connected).

import { nearestKey } from '../core/nearest-key.ts';
import { toolMatcher } from '../hooks/command-hook.ts';
import { exitPlanModeName } from '../permissions/modes.ts';
import { namesTool, parseRule } from '../permissions/rules.ts';
import {
  builtInToolNames,
  claudeToolNames,
  isClaudeOnlyTool,
  toolsOfClaudeName,
} from '../tools/claude-code-names.ts';
import type { LoadedSettings } from './settings-types.ts';

/** The tools a system has besides the built-in ones (a host's own), and the MCP servers it configures. */
export type KnownTools = { hostTools: readonly string[]; mcpServers: readonly string[] };

/**
 * One entry to check: where it was written (`the settings file /w/.claude/settings.json`, `--deny`), its
 * place there (`permissions.deny[2]`), and the rule or the matcher.
 */
export type ToolNameEntry = { where: string; place?: string } & (
  | { rule: string; list: 'allow' | 'ask' | 'deny' }
  | { matcher: string }
);

export type ToolNameProblems = { errors: string[]; warnings: string[] };

/** agentchart's tools a rule pattern means nothing to: their input has no `command` or `path` to match. */
const patternless = new Set(['task', exitPlanModeName]);

/** Hook events whose matcher is about tool names (the others match a source or a reason). */
const toolEvents = new Set(['PreToolUse', 'PostToolUse']);

/**
 * The rules and tool matchers of loaded settings that are in force, each with its file and place
 * (`permissions.deny[2]`). One not in force (an untrusted workspace's allow rule or hook) does nothing; it is
 * checked when it is trusted.
 */
export function settingsEntries(settings: LoadedSettings): ToolNameEntry[] {
  const seen = new Map<string, number>();
  const entries: ToolNameEntry[] = [];
  for (const source of settings.sources) {
    const count = `${source.file}\0${source.key}`;
    const index = seen.get(count) ?? 0;
    seen.set(count, index + 1);
    if (source.ignored !== undefined) continue;
    const where = `the settings file ${source.file}`;
    const place = `${source.key}[${index}]`;
    const list = /^permissions\.(allow|ask|deny)$/.exec(source.key)?.[1] as
      | 'allow'
      | 'ask'
      | 'deny'
      | undefined;
    if (list !== undefined) entries.push({ where, place, rule: String(source.value), list });
    const event = /^hooks\.(.+)$/.exec(source.key)?.[1];
    const matcher = (source.value as { matcher?: unknown } | undefined)?.matcher;
    if (event !== undefined && toolEvents.has(event) && typeof matcher === 'string')
      entries.push({ where, place: `${place}.matcher`, matcher });
  }
  return entries;
}

/** Checks each entry against the tools that exist: Claude Code's names, agentchart's, the host's. */
export function checkToolNames(entries: readonly ToolNameEntry[], known: KnownTools): ToolNameProblems {
  const errors: string[] = [];
  // Warnings of one file that say the same (nine rules about one absent server) are one line.
  const warnings = new Map<string, { where: string; text: string; entries: string[] }>();
  const candidates = [...new Set([...builtInToolNames, ...known.hostTools, ...claudeToolNames])];
  for (const entry of entries) {
    const found =
      'rule' in entry
        ? ruleProblem(entry, candidates, known)
        : matcherProblem(entry.matcher, candidates, known);
    if (found === undefined) continue;
    const written = `${entry.place ? `${entry.place} ` : ''}${JSON.stringify('rule' in entry ? entry.rule : entry.matcher)}`;
    if (found.kind === 'errors') {
      errors.push(`${entry.where}: ${written}: ${found.text}`);
      continue;
    }
    const key = `${entry.where}\0${found.text}`;
    const group = warnings.get(key) ?? { where: entry.where, text: found.text, entries: [] };
    group.entries.push(written);
    warnings.set(key, group);
  }
  return {
    errors,
    warnings: [...warnings.values()].map(({ where, text, entries: written }) => {
      const more = written.length > 1 ? ` and ${written.length - 1} more like it` : '';
      return `${where}: ${written[0]}${more}: ${text}`;
    }),
  };
}

type Found = { text: string; kind: 'errors' | 'warnings' } | undefined;

function ruleProblem(
  entry: { rule: string; list: string },
  candidates: readonly string[],
  known: KnownTools,
): Found {
  const { tool, pattern } = parseRule(entry.rule);
  if (tool.startsWith('mcp__')) return mcpProblem(tool, known);
  if (tool.includes('*')) {
    if (candidates.some((name) => namesTool(tool, name))) return undefined;
    return { kind: 'warnings', text: `the pattern ${tool} matches no tool today` };
  }
  if (!candidates.includes(tool)) return { kind: 'errors', text: noSuchTool(tool, candidates) };
  const tools = toolsOfClaudeName(tool).length > 0 ? toolsOfClaudeName(tool) : [tool];
  if (pattern !== undefined && !isClaudeOnlyTool(tool) && tools.every((name) => patternless.has(name))) {
    const text = `agentchart reads no pattern in ${tool} rules, so this rule covers no call; write ${tool} alone to cover every call`;
    // An allow rule that covers nothing only leaves calls to ask; a deny or ask rule would guard nothing.
    return { kind: entry.list === 'allow' ? 'warnings' : 'errors', text };
  }
  return undefined;
}

function matcherProblem(matcher: string, candidates: readonly string[], known: KnownTools): Found {
  if (matcher === '' || matcher === '*') return undefined;
  // Claude Code reads a matcher of only these characters as names (hooks, "Matcher patterns").
  if (/^[A-Za-z0-9_\-\s,|]+$/.test(matcher)) {
    for (const name of matcher
      .split(/[|,]/)
      .map((part) => part.trim())
      .filter(Boolean)) {
      if (matchesSome(name, candidates)) continue;
      if (name.startsWith('mcp__')) {
        const server = mcpProblem(name, known);
        if (server !== undefined) return server;
        if (name.slice('mcp__'.length).includes('__')) continue;
        return {
          kind: 'errors',
          text: `${name} names no tool: a matcher compares whole names (write mcp__${serverOf(name)}__.* for every tool of the server)`,
        };
      }
      return { kind: 'errors', text: noSuchTool(name, candidates) };
    }
    return undefined;
  }
  if (matchesSome(matcher, candidates)) return undefined;
  // An MCP server's tools are only known once it is connected: a pattern about them cannot be checked here.
  if (matcher.includes('mcp__') && known.mcpServers.length > 0) return undefined;
  return { kind: 'warnings', text: 'this regular expression matches no tool today' };
}

function matchesSome(matcher: string, candidates: readonly string[]): boolean {
  const matches = toolMatcher(matcher);
  return matches === undefined || candidates.some((name) => matches(name));
}

/** `mcp__<server>` or `mcp__<server>__<tool>` (a `*` anywhere): a warning when the server is not configured. */
function mcpProblem(tool: string, known: KnownTools): Found {
  const server = serverOf(tool);
  if (server.includes('*'))
    return known.mcpServers.length > 0
      ? undefined
      : { kind: 'warnings', text: 'no MCP server is configured' };
  if (known.mcpServers.includes(server)) return undefined;
  const configured = known.mcpServers.length > 0 ? known.mcpServers.join(', ') : 'none';
  return {
    kind: 'warnings',
    text: `no MCP server named ${server} is configured (configured: ${configured})`,
  };
}

function serverOf(tool: string): string {
  return tool.slice('mcp__'.length).split('__')[0]!;
}

function noSuchTool(name: string, candidates: readonly string[]): string {
  const near = nearestKey(name, candidates);
  return `no tool is named ${name}${near === undefined ? '' : ` (did you mean ${near}?)`}`;
}
