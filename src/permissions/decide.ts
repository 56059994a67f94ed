import type { ToolAccess } from '../tools/define-tool.ts';
import type { PermissionMode } from './modes.ts';
import {
  formatRule,
  matchesRule,
  type ParsedRule,
  type PermissionRule,
  parseRule,
  stringArgument,
} from './rules.ts';
import { splitCommand } from './shell-words.ts';

/** The permission answer for one call, with who decided it and a reason the log and the model read. */
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
  /** Rules the user allowed "for this session" (a prefix such as `bash(npm test:*)`). */
  sessionRules?: readonly PermissionRule[];
  tool: { name: string; access: ToolAccess };
  input: unknown;
  /** The workspace root, to read an absolute `path` argument as workspace-relative when matching rules. */
  cwd?: string;
};

/**
 * Decides one call. Order: a matching deny rule denies; then a matching allow rule allows; then a rule
 * or a call the person allowed for the session (see `sessionKey`) allows; otherwise the mode decides by the tool's access.
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
  const command = stringArgument(input, 'command');
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
  const sessionRule = findAllowRule(
    (request.sessionRules ?? []).map(parseRule),
    tool.name,
    input,
    parts,
    cwd,
  );
  if (sessionRule !== undefined) {
    return {
      decision: 'allow',
      by: 'session',
      reason: `allowed for this session by rule ${formatRule(sessionRule)}`,
    };
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

/**
 * The key under which "allow for this session" is remembered: the tool name, and for a call with a
 * `command` (bash) the exact command too, so allowing `npm test` does not allow `rm -rf /`.
 */
export function sessionKey(tool: { name: string }, input: unknown): string {
  const command = stringArgument(input, 'command');
  return command === undefined ? tool.name : `${tool.name}(${command})`;
}
