import type { ToolAccess } from '../tools/define-tool.ts';
import { readCommandLine } from './command-reading.ts';
import { commandAllowRule, commandDenyRule, unsureUnderDeny } from './command-rules.ts';
import { fileReadFinding, fileWriteFinding } from './file-commands.ts';
import type { PermissionMode } from './modes.ts';
import { writeIntoReadOnlyFolder } from './read-only-folders.ts';
import {
  formatRule,
  matchesRule,
  type ParsedRule,
  type PermissionRule,
  parseRule,
  stringArgument,
} from './rules.ts';

/** The permission answer for one call, with who decided it and a reason the log and the model read. */
export type PermissionDecision = {
  decision: 'allow' | 'deny' | 'ask';
  by: 'rule' | 'mode' | 'session';
  reason: string;
};

export type PermissionRequest = {
  mode: PermissionMode;
  allow?: readonly PermissionRule[];
  /** Rules whose calls always ask, even when an allow rule, a session allowance or the mode would allow. */
  ask?: readonly PermissionRule[];
  deny?: readonly PermissionRule[];
  /** Keys made by `sessionKey` for calls the user allowed "for this session". */
  sessionAllowed?: ReadonlySet<string>;
  /** Rules the user allowed "for this session" (a prefix such as `bash(npm test:*)`). */
  sessionRules?: readonly PermissionRule[];
  tool: { name: string; access: ToolAccess };
  input: unknown;
  /** The workspace root, to read an absolute `path` argument as workspace-relative when matching rules. */
  cwd?: string;
  /** Real paths of folders nothing may write to (loaded skills'): a command writing there asks. */
  readOnlyFolders?: readonly string[];
};

/**
 * Decides one call. Order (Claude Code's: deny, then ask, then allow): a matching deny rule denies; then a
 * matching ask rule asks (or denies, where the mode denies the call anyway: plan mode's writes); then a
 * matching allow rule allows; then a rule or a call the person allowed for the session (see `sessionKey`)
 * allows; otherwise the mode decides by the tool's access.
 *
 * A `command` (the `bash` tool) is read with a bash grammar first (command-reading.ts), and rules match the
 * simple commands it runs as bash reads them (command-rules.ts). A rule with a pattern allows only a plain
 * list or pipeline whose every command it or another allow rule covers: `bash(npm test*)` does not allow
 * `npm test; rm -rf ~`, nor `npm test $(rm -rf ~)`. A deny rule denies when it covers any command anywhere:
 * `bash(rm:*)` denies `ls && rm -rf x`, `echo $(rm x)`, `sudo rm x`, `"/bin/rm" x`. When the reader cannot
 * account for everything a line runs (`eval`, a program name from `$X`, a parse error) and a deny rule
 * guards the tool, the answer is at most `ask`, whatever the rules and the mode would allow. So is a line
 * that writes into a read-only folder (read-only-folders.ts), as far as its text tells.
 */
export function decidePermission(request: PermissionRequest): PermissionDecision {
  const { tool, input, cwd } = request;
  const deny = (request.deny ?? []).map(parseRule);
  const ask = (request.ask ?? []).map(parseRule);
  const allow = (request.allow ?? []).map(parseRule);
  const sessionRules = (request.sessionRules ?? []).map(parseRule);
  const command = stringArgument(input, 'command');
  if (command === undefined) {
    const guards = (rule: ParsedRule) =>
      matchesRule(rule, tool.name, input, cwd) || matchesRule(readAsEdit(rule), tool.name, input, cwd);
    const denied = deny.find(guards);
    if (denied !== undefined) return deniedBy(denied);
    const asked = ask.find(guards);
    if (asked !== undefined) return askedBy(asked, request);
    const allowed = allow.find((rule) => matchesRule(rule, tool.name, input, cwd));
    const sessionRule = sessionRules.find((rule) => matchesRule(rule, tool.name, input, cwd));
    return allowOrMode(request, allowed, sessionRule);
  }
  const reading = readCommandLine(command, cwd);
  const denied = commandDenyRule(deny, tool.name, command, reading);
  if (denied !== undefined) return deniedBy(denied);
  // Read path rules also cover the files `cat`, `head`, `sed`, ... read (file-commands.ts).
  const readDenied = fileReadFinding(deny, reading, cwd);
  if (readDenied !== undefined && 'rule' in readDenied) return deniedBy(readDenied.rule);
  const writeDenied = fileWriteFinding(deny, reading, command, cwd);
  if (writeDenied !== undefined && 'rule' in writeDenied) return deniedBy(writeDenied.rule);
  // An ask rule covers a line as a deny rule does: any command anywhere in it.
  const asked = commandDenyRule(ask, tool.name, command, reading);
  if (asked !== undefined) return askedBy(asked, request);
  const readAsked = fileReadFinding(ask, reading, cwd);
  if (readAsked !== undefined && 'rule' in readAsked) return askedBy(readAsked.rule, request);
  const writeAsked = fileWriteFinding(ask, reading, command, cwd);
  if (writeAsked !== undefined && 'rule' in writeAsked) return askedBy(writeAsked.rule, request);
  const decision = allowOrMode(
    request,
    commandAllowRule(allow, tool.name, reading),
    commandAllowRule(sessionRules, tool.name, reading),
  );
  const unsure =
    unsureUnderDeny([...deny, ...ask], tool.name, reading) ??
    [readDenied, readAsked, writeDenied, writeAsked]
      .map((finding) => (finding && 'unsure' in finding ? finding.unsure : undefined))
      .find(Boolean);
  // An ask the mode would make anyway is the rule's ask too: a hook's allow must not pass it.
  if (decision.decision !== 'deny' && unsure !== undefined)
    return { decision: 'ask', by: 'rule', reason: unsure };
  const intoReadOnly = writeIntoReadOnlyFolder(reading, request.readOnlyFolders ?? [], cwd);
  if (decision.decision !== 'deny' && intoReadOnly !== undefined)
    return { decision: 'ask', by: 'rule', reason: intoReadOnly };
  return decision;
}

/**
 * A deny or ask rule `Read(path)` guards editing and writing that path too, as Claude Code's does (permissions,
 * "Read and Edit paths": a Read deny also blocks Edit and Write of it); an allow rule `Read(...)` grants
 * reading only, so this is never applied to allow rules.
 */
function readAsEdit(rule: ParsedRule): ParsedRule {
  return rule.tool === 'Read' && rule.pattern !== undefined ? { tool: 'Edit', pattern: rule.pattern } : rule;
}

function deniedBy(rule: ParsedRule): PermissionDecision {
  return { decision: 'deny', by: 'rule', reason: `denied by rule ${formatRule(rule)}` };
}

/** An ask rule's answer: ask, unless the mode denies the call anyway (the stricter answer wins). */
function askedBy(rule: ParsedRule, request: PermissionRequest): PermissionDecision {
  const byMode = decideByMode(request.mode, request.tool.access);
  if (byMode.decision === 'deny') return byMode;
  return { decision: 'ask', by: 'rule', reason: `asks by rule ${formatRule(rule)}` };
}

/** After the deny rules: an allow rule, then a session rule or allowance, then the mode. */
function allowOrMode(
  request: PermissionRequest,
  allowed: ParsedRule | undefined,
  sessionRule: ParsedRule | undefined,
): PermissionDecision {
  if (allowed !== undefined) {
    return { decision: 'allow', by: 'rule', reason: `allowed by rule ${formatRule(allowed)}` };
  }
  if (sessionRule !== undefined) {
    return {
      decision: 'allow',
      by: 'session',
      reason: `allowed for this session by rule ${formatRule(sessionRule)}`,
    };
  }
  if (request.sessionAllowed?.has(sessionKey(request.tool, request.input))) {
    return { decision: 'allow', by: 'session', reason: 'allowed for this session' };
  }
  return decideByMode(request.mode, request.tool.access);
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
