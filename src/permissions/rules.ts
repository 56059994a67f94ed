import path from 'node:path';
import picomatch from 'picomatch';
import { ConfigError } from '../errors/config-error.ts';
import { toolsOfClaudeName } from '../tools/claude-code-names.ts';
import { skillToolName } from '../tools/skill.ts';

/**
 * A rule naming a tool, optionally narrowed by a pattern: `read_file` (every call), `bash(npm test*)`,
 * `write_file(src/**)`. The tool name may hold `*` (`mcp__github__*`, `mcp__*__search`), and
 * `mcp__<server>` names every tool of that MCP server. See `matchesRule` for how patterns match.
 */
export type PermissionRule = string;

export type ParsedRule = { tool: string; pattern: string | undefined };

const rulePattern = /^([A-Za-z0-9_*-]{1,64})(?:\((.*)\))?$/s;

/**
 * What is wrong with a rule, or `undefined` when it is well formed. The options schema refuses a bad rule
 * with this text when the host passes it in, so a decision never meets one.
 */
export function ruleProblem(rule: string): string | undefined {
  const parts = rulePattern.exec(rule.trim());
  if (parts === null) {
    return (
      'write a tool name ("read_file") or a tool name with a pattern in parentheses ' +
      '("bash(npm test*)", "write_file(src/**)")'
    );
  }
  if (parts[2] !== undefined && parts[2].trim() === '') return 'the pattern in parentheses is empty';
  if (parts[2] !== undefined && parts[2].trim() === ':*') return 'the command prefix before ":*" is empty';
  return undefined;
}

/** Parses `tool` or `tool(pattern)`; throws a `ConfigError` saying what is wrong with a malformed rule. */
export function parseRule(rule: PermissionRule): ParsedRule {
  const problem = ruleProblem(rule);
  if (problem !== undefined) {
    throw new ConfigError(`Malformed permission rule ${JSON.stringify(rule)}: ${problem}.`);
  }
  const parts = rulePattern.exec(rule.trim())!;
  return { tool: parts[1]!, pattern: parts[2]?.trim() };
}

export function formatRule(rule: ParsedRule): string {
  return rule.pattern === undefined ? rule.tool : `${rule.tool}(${rule.pattern})`;
}

/**
 * Whether a rule covers a call.
 *
 * - A rule without a pattern covers every call of its tool.
 * - For a call whose input has a string `command` (the `bash` tool), the pattern is matched against that
 *   text, trimmed: `*` stands for any run of characters (spaces and `/` included), every other character is
 *   literal, and the match is anchored at both ends. `bash(npm test*)` covers `npm test` and
 *   `npm test -- --watch`, not `npx npm test`. A pattern ending in `:*` is a prefix rule (the form Claude
 *   Code users know): `bash(npm test:*)` covers `npm test` and `npm test` followed by a space and anything,
 *   but not `npm testing`. `decidePermission` never hands a command line here as written: it reads the line
 *   with a bash grammar and matches each simple command as bash reads it (see command-rules.ts).
 * - For a `skill` call the pattern is matched against the skill's `name`, alone or followed by its `args`,
 *   as a command is (`*` wildcards; see `matchesSkill`).
 * - For any other call the pattern is a picomatch glob (`dot: true`) matched against the `path` argument
 *   made workspace-relative and normalised (`./src/a.ts` and `<cwd>/src/a.ts` are `src/a.ts`); a call
 *   without `path` is matched as `.`. A path that climbs out with `..` is never covered. A pattern's
 *   leading `./` is the workspace root (see `pathPattern` for rules in Claude Code's names).
 */
export function matchesRule(rule: ParsedRule, toolName: string, input: unknown, cwd?: string): boolean {
  if (!namesTool(rule.tool, toolName)) return false;
  if (rule.pattern === undefined) return true;
  const command = stringArgument(input, 'command');
  if (command !== undefined) return commandMatcher(rule.pattern)(command.trim());
  if (toolName === skillToolName) return matchesSkill(rule.pattern, input);
  const subject = ruleSubjectPath(stringArgument(input, 'path'), cwd);
  return subject !== undefined && picomatch(pathPattern(rule.tool, rule.pattern), { dot: true })(subject);
}

/**
 * A rule on the skill tool as Claude Code reads `Skill(name)` and `Skill(name *)`: the skill's name, alone or
 * followed by the call's arguments; a trailing ` *` or `:*` also covers the name without arguments. The name
 * alone is always tried, so arguments never take a call out from under a deny rule.
 */
function matchesSkill(pattern: string, input: unknown): boolean {
  const name = stringArgument(input, 'name');
  if (name === undefined) return false;
  const args = stringArgument(input, 'args')?.trim();
  const matcher = commandMatcher(pattern);
  const bare = pattern.replace(/(?:\s+\*|:\*)$/, '');
  return name === bare || matcher(name) || (args !== undefined && args !== '' && matcher(`${name} ${args}`));
}

/**
 * A path pattern as picomatch reads it against a workspace-relative path. A leading `./` is the workspace
 * root. A rule in Claude Code's names (`Read(./.env)`) reads its pattern as Claude Code does: a leading
 * single `/` is the project root too, and a pattern without `/` matches at any depth (`Read(.env)` covers
 * `.env` and `config/.env`), so a copied deny rule covers what it covered there.
 */
function pathPattern(ruleTool: string, written: string): string {
  const claude = toolsOfClaudeName(ruleTool).length > 0;
  let pattern = written.replace(/^(?:\.\/)+/, '');
  if (claude && /^\/[^/]/.test(pattern)) pattern = pattern.slice(1);
  if (claude && !written.includes('/')) pattern = `**/${pattern}`;
  return pattern;
}

/**
 * Whether a rule's tool part names `toolName`: the same name; a Claude Code name standing for it (`Bash` for
 * `bash`, `Edit` for `edit_file` and `write_file`: see claude-code-names.ts); a name with `*` standing for any
 * run of characters (`mcp__github__*`); or `mcp__<server>`, which stands for every tool of that server.
 */
export function namesTool(ruleTool: string, toolName: string): boolean {
  if (ruleTool === toolName || toolsOfClaudeName(ruleTool).includes(toolName)) return true;
  if (ruleTool.includes('*')) return commandMatcher(ruleTool)(toolName);
  const server = /^mcp__([^_*]+(?:_[^_*]+)*)$/.exec(ruleTool);
  return server !== null && toolName.startsWith(`${ruleTool}__`);
}

/** The call's argument `name` when it is a string (rules read `command` and `path`). */
export function stringArgument(input: unknown, name: string): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const value = (input as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

function ruleSubjectPath(given: string | undefined, cwd: string | undefined): string | undefined {
  let subject = given ?? '.';
  if (path.isAbsolute(subject)) {
    if (cwd === undefined) return undefined;
    subject = path.relative(cwd, subject);
  }
  const normalised = path.posix.normalize(subject.split(path.sep).join('/')).replace(/\/$/, '');
  if (normalised === '..' || normalised.startsWith('../') || path.posix.isAbsolute(normalised))
    return undefined;
  return normalised === '' ? '.' : normalised;
}

const commandMatchers = new Map<string, (command: string) => boolean>();

function commandMatcher(pattern: string): (command: string) => boolean {
  let matcher = commandMatchers.get(pattern);
  if (matcher === undefined && pattern.endsWith(':*')) {
    const prefix = pattern.slice(0, -2).trim().replace(/\s+/g, ' ');
    matcher = (command) =>
      command === prefix || (command.startsWith(prefix) && /\s/.test(command.charAt(prefix.length)));
    commandMatchers.set(pattern, matcher);
  }
  if (matcher === undefined) {
    const source = pattern
      .split('*')
      .map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    const regex = new RegExp(`^${source}$`, 's');
    matcher = (command) => regex.test(command);
    commandMatchers.set(pattern, matcher);
  }
  return matcher;
}
