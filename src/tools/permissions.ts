import path from 'node:path';
import picomatch from 'picomatch';
import { ConfigError } from '../errors/config-error.ts';
import type { AnyTool, ToolAccess } from './define-tool.ts';
import { splitCommand } from './shell-words.ts';

/**
 * How much the agent may do without asking:
 * - `plan`: read-only. Tools with access `read` or `none` run; `write` and `exec` are denied (and not offered).
 * - `default`: `read`/`none` run; `write` and `exec` ask the host.
 * - `accept-edits`: `read`/`none`/`write` run; `exec` asks.
 * - `bypass`: everything runs.
 */
export type PermissionMode = 'plan' | 'default' | 'accept-edits' | 'bypass';

export const permissionModes: readonly PermissionMode[] = ['plan', 'default', 'accept-edits', 'bypass'];

/**
 * A rule naming a tool, optionally narrowed by a pattern: `read_file` (every call), `bash(npm test*)`,
 * `write_file(src/**)`. See `matchesRule` for how patterns match.
 */
export type PermissionRule = string;

export type ParsedRule = { tool: string; pattern: string | undefined };

export type PermissionDecision = {
  decision: 'allow' | 'deny' | 'ask';
  by: 'rule' | 'mode' | 'session';
  reason: string;
};

export type PermissionRequest = {
  mode: PermissionMode;
  allow?: readonly PermissionRule[];
  deny?: readonly PermissionRule[];
  /** Keys made by `sessionKey` for calls the user allowed "for this session". */
  sessionAllowed?: ReadonlySet<string>;
  tool: { name: string; access: ToolAccess };
  input: unknown;
  /** The workspace root, to read an absolute `path` argument as workspace-relative when matching rules. */
  cwd?: string;
};

const rulePattern = /^([A-Za-z0-9_-]{1,64})(?:\((.*)\))?$/s;

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

/**
 * Whether a rule covers a call.
 *
 * - A rule without a pattern covers every call of its tool.
 * - For a call whose input has a string `command` (the `bash` tool), the pattern is matched against the
 *   whole command, trimmed: `*` stands for any run of characters (spaces and `/` included), every other
 *   character is literal, and the match is anchored at both ends. `bash(npm test*)` covers `npm test` and
 *   `npm test -- --watch`, not `npx npm test`.
 * - For any other call the pattern is a picomatch glob (`dot: true`) matched against the `path` argument
 *   made workspace-relative and normalised (`./src/a.ts` and `<cwd>/src/a.ts` are `src/a.ts`); a call
 *   without `path` is matched as `.`. A path that climbs out with `..` is never covered.
 *
 * `decidePermission` adds one more check for allow rules on commands: see there.
 */
export function matchesRule(rule: ParsedRule, toolName: string, input: unknown, cwd?: string): boolean {
  if (rule.tool !== toolName) return false;
  if (rule.pattern === undefined) return true;
  const command = stringField(input, 'command');
  if (command !== undefined) return commandMatcher(rule.pattern)(command.trim());
  const subject = ruleSubjectPath(stringField(input, 'path'), cwd);
  return subject !== undefined && picomatch(rule.pattern, { dot: true })(subject);
}

/**
 * Decides one call. Order: a matching deny rule denies; then a matching allow rule allows; then a
 * session allowance (see `sessionKey`) allows; otherwise the mode decides by the tool's access.
 *
 * A command (`bash`) that chains several commands (`;`, `&&`, `||`, `|`, `&`, a newline) is allowed by
 * rules only if every part is covered by some allow rule, and never when it contains command substitution
 * (`$(...)`, backquotes); a deny rule denies if it covers the whole command or any part. So
 * `bash(npm test*)` does not allow `npm test; rm -rf ~`, and `bash(rm *)` denies `ls && rm -rf x`.
 */
export function decidePermission(request: PermissionRequest): PermissionDecision {
  const { tool, input, cwd } = request;
  const deny = (request.deny ?? []).map(parseRule);
  const allow = (request.allow ?? []).map(parseRule);
  const command = stringField(input, 'command');
  const parts = command === undefined ? undefined : splitCommand(command);
  const inputs =
    parts === undefined ? [input] : [input, ...parts.commands.map((part) => ({ command: part }))];
  const denied = deny.find((rule) => inputs.some((each) => matchesRule(rule, tool.name, each, cwd)));
  if (denied !== undefined)
    return { decision: 'deny', by: 'rule', reason: `denied by rule ${formatRule(denied)}` };
  const allowed = findAllowRule(allow, tool.name, input, parts, cwd);
  if (allowed !== undefined) {
    return { decision: 'allow', by: 'rule', reason: `allowed by rule ${formatRule(allowed)}` };
  }
  if (request.sessionAllowed?.has(sessionKey(tool, input))) {
    return { decision: 'allow', by: 'session', reason: 'allowed for this session' };
  }
  return decideByMode(request.mode, tool.access);
}

function findAllowRule(
  allow: ParsedRule[],
  toolName: string,
  input: unknown,
  parts: ReturnType<typeof splitCommand> | undefined,
  cwd: string | undefined,
): ParsedRule | undefined {
  if (parts === undefined) return allow.find((rule) => matchesRule(rule, toolName, input, cwd));
  const whole = allow.find((rule) => rule.pattern === undefined && matchesRule(rule, toolName, input));
  if (whole !== undefined) return whole;
  if (parts.substitution || parts.commands.length === 0) return undefined;
  let last: ParsedRule | undefined;
  for (const part of parts.commands) {
    last = allow.find((rule) => matchesRule(rule, toolName, { command: part }));
    if (last === undefined) return undefined;
  }
  return last;
}

const modeTable: Record<PermissionMode, Record<ToolAccess, PermissionDecision['decision']>> = {
  plan: { none: 'allow', read: 'allow', write: 'deny', exec: 'deny' },
  default: { none: 'allow', read: 'allow', write: 'ask', exec: 'ask' },
  'accept-edits': { none: 'allow', read: 'allow', write: 'allow', exec: 'ask' },
  bypass: { none: 'allow', read: 'allow', write: 'allow', exec: 'allow' },
};

/** What a mode alone decides for a tool of the given access. */
export function decideByMode(mode: PermissionMode, access: ToolAccess): PermissionDecision {
  const decision = modeTable[mode][access];
  const verb = decision === 'ask' ? 'needs approval' : decision === 'allow' ? 'is allowed' : 'is not allowed';
  return { decision, by: 'mode', reason: `${access} access ${verb} in ${mode} mode` };
}

/** The tools a model is offered in a mode: plan mode offers only tools with access `read` or `none`. */
export function toolsOfferedInMode<T extends AnyTool>(tools: readonly T[], mode: PermissionMode): T[] {
  if (mode !== 'plan') return [...tools];
  return tools.filter((tool) => tool.access === 'read' || tool.access === 'none');
}

/**
 * The key under which "allow for this session" is remembered: the tool name, and for a call with a
 * `command` (bash) the exact command too, so allowing `npm test` does not allow `rm -rf /`.
 */
export function sessionKey(tool: { name: string }, input: unknown): string {
  const command = stringField(input, 'command');
  return command === undefined ? tool.name : `${tool.name}(${command})`;
}

export function formatRule(rule: ParsedRule): string {
  return rule.pattern === undefined ? rule.tool : `${rule.tool}(${rule.pattern})`;
}

function stringField(input: unknown, field: string): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const value = (input as Record<string, unknown>)[field];
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
