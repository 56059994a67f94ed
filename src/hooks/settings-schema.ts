// The `hooks` field of a settings file, in Claude Code's shape:
// `{ "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "…", "timeout": 30 }] }] }`.
// Event names are Claude Code's; agentchart's own points use the same capitalised style. Handler keys that
// real files carry are read as Claude Code reads them (hooks "Common handler fields", "Command handler
// fields"); a handler agentchart cannot run as written (another `type`, PowerShell, `asyncRewake`, `if` on
// an event without tools) is refused with a message naming it, never skipped.
import { z } from 'zod/v4';
import { ruleProblem } from '../permissions/rules.ts';
import { claudeEventNames } from './command-hook.ts';
import { exactNames, matcherProblem, splitNames } from './hook-matcher.ts';
import {
  type CommandHook,
  defaultHookTimeoutMs,
  type HookPoint,
  type Hooks,
  wiredHookPoints,
} from './hook-types.ts';

const commandSpec = z.strictObject({
  type: z.literal('command'),
  command: z.string().min(1),
  /** Seconds, as in Claude Code (default 60 here). */
  timeout: z.number().positive().max(3600).optional(),
  /** Exec form: `command` is the program, these its arguments; no shell. */
  args: z.array(z.string()).optional(),
  /**
   * Runs, but decides nothing (Claude Code does not wait for it; agentchart does: see
   * docs/hooks-and-settings.md).
   */
  async: z.boolean().optional(),
  asyncRewake: z
    .boolean()
    .optional()
    .refine((value) => value !== true, {
      message: 'asyncRewake hooks (a background hook that wakes the agent) are not run by agentchart',
    }),
  shell: z
    .string()
    .optional()
    .refine((value) => value === undefined || value === 'bash', {
      message: 'agentchart runs hook commands with bash only ("shell": "bash")',
    }),
  /** Claude Code's spinner text while the hook runs; agentchart shows none. */
  statusMessage: z.string().optional(),
  /** Honoured by Claude Code only in skill front matter; in settings it changes nothing there either. */
  once: z.boolean().optional(),
  /** One permission rule: the hook runs only for the tool calls it matches. */
  if: z
    .string()
    .optional()
    .superRefine((rule, context) => {
      const problem = rule === undefined ? undefined : ruleProblem(rule);
      if (problem !== undefined)
        context.addIssue({ code: 'custom', message: `not a permission rule: ${problem}` });
    }),
});

/** A handler: only `type: "command"` runs; Claude Code's other types are named as such. */
const handlerSpec = z
  .unknown()
  .superRefine((value, context) => {
    const type = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
    if (type === 'command') return;
    context.addIssue({
      code: 'custom',
      path: ['type'],
      message:
        typeof type === 'string'
          ? `"${type}" hooks are not run by agentchart (only "type": "command")`
          : 'a hook needs "type": "command"',
    });
  })
  .pipe(commandSpec);

const matcherGroup = z.strictObject({
  /** What a group is about: tools (PreToolUse, PostToolUse), sources (SessionStart), triggers (PreCompact). */
  matcher: z
    .string()
    .optional()
    .superRefine((text, context) => {
      const problem = text === undefined ? undefined : matcherProblem(text);
      if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
    }),
  hooks: z.array(handlerSpec).min(1),
});

const wiredEventNames = wiredHookPoints.map((point) => claudeEventNames[point]);

/** Claude Code's events that agentchart has no point for yet: named as such, not as unknown. */
const claudeOnlyEvents = ['Notification'];

/** The events whose hooks are about a tool call, where a handler's `if` means something. */
const toolEvents = new Set([claudeEventNames.preTool, claudeEventNames.postTool]);

/** `hooks` of one settings file: known event names only, each a list of matcher groups. */
export const hooksSettingsSchema = z
  .record(z.string(), z.array(matcherGroup))
  .superRefine((hooks, context) => {
    for (const [name, groups] of Object.entries(hooks)) {
      if (!wiredEventNames.includes(name)) {
        const known = Object.values(claudeEventNames).includes(name) || claudeOnlyEvents.includes(name);
        context.addIssue({
          code: 'custom',
          path: [name],
          message: known
            ? `${name} hooks are not run by agentchart yet (supported: ${wiredEventNames.join(', ')})`
            : `unknown hook event "${name}" (supported: ${wiredEventNames.join(', ')})`,
        });
        continue;
      }
      if (toolEvents.has(name)) continue;
      for (const [group, { matcher }] of groups.entries()) {
        const unknown = unknownValues(name, matcher);
        if (unknown !== undefined)
          context.addIssue({ code: 'custom', path: [name, group, 'matcher'], message: unknown });
      }
      for (const [group, { hooks: handlers }] of groups.entries())
        for (const [index, handler] of handlers.entries())
          if (handler.if !== undefined)
            context.addIssue({
              code: 'custom',
              path: [name, group, 'hooks', index, 'if'],
              message: `"if" applies to tool events only (PreToolUse, PostToolUse); on ${name} Claude Code never runs the hook`,
            });
    }
  });

/** The values a matcher selects among where it is not about tools (hooks "Matcher patterns"). */
const matcherValues: Readonly<Record<string, readonly string[]>> = {
  // `clear` and `compact` are Claude Code's; agentchart never starts a session so, and such a group never runs.
  [claudeEventNames.sessionStart]: ['startup', 'resume', 'clear', 'compact', 'fork'],
  [claudeEventNames.preCompact]: ['manual', 'auto'],
};

/** Why an exact-name matcher of `event` names a value that event never has (a typo would never run). */
function unknownValues(event: string, matcher: string | undefined): string | undefined {
  const values = matcherValues[event];
  if (values === undefined || matcher === undefined || !exactNames(matcher)) return undefined;
  const unknown = splitNames(matcher).filter((name) => !values.includes(name));
  if (unknown.length === 0) return undefined;
  return `${event} matchers select ${values.join(', ')}; ${unknown.map((name) => JSON.stringify(name)).join(', ')} is none of them`;
}

export type HooksSettings = z.infer<typeof hooksSettingsSchema>;

/** The command hooks of several settings files (in the order given) as one list per event name. */
export function mergeHooksSettings(into: HooksSettings, from: HooksSettings | undefined): void {
  if (from === undefined) return;
  for (const [name, groups] of Object.entries(from)) into[name] = [...(into[name] ?? []), ...groups];
}

const pointOfEvent = new Map<string, HookPoint>(
  Object.entries(claudeEventNames).map(([point, name]) => [name, point as HookPoint]),
);

/** The command hooks of merged settings as the `hooks` option of `createAgentSystem`. */
export function commandHooksFrom(settings: HooksSettings): Hooks {
  const hooks: Record<string, CommandHook[]> = {};
  for (const [name, groups] of Object.entries(settings)) {
    const point = pointOfEvent.get(name);
    if (point === undefined) continue;
    const list = hooks[point] ?? [];
    hooks[point] = list;
    for (const group of groups)
      for (const hook of group.hooks) {
        list.push({
          type: 'command',
          command: hook.command,
          timeoutMs: Math.round((hook.timeout ?? defaultHookTimeoutMs / 1000) * 1000),
          ...(group.matcher !== undefined ? { matcher: group.matcher } : {}),
          ...(hook.args !== undefined ? { args: hook.args } : {}),
          ...(hook.async !== undefined ? { async: hook.async } : {}),
          ...(hook.if !== undefined ? { if: hook.if } : {}),
        });
      }
  }
  return hooks as Hooks;
}
