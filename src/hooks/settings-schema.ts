// The `hooks` field of a settings file, in Claude Code's shape:
// `{ "PreToolUse": [{ "matcher": "bash", "hooks": [{ "type": "command", "command": "…", "timeout": 30 }] }] }`.
// Event names are Claude Code's; agentchart's own points use the same capitalised style.
import { z } from 'zod/v4';
import { claudeEventNames } from './command-hook.ts';
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
  /** Seconds, as in Claude Code (default 60). */
  timeout: z.number().positive().max(3600).optional(),
});

const matcherGroup = z.strictObject({
  /** The tools a PreToolUse/PostToolUse group is about: a name, `a|b`, a regular expression; empty or `*` for all. */
  matcher: z
    .string()
    .optional()
    .superRefine((text, context) => {
      if (text === undefined) return;
      try {
        new RegExp(text === '*' ? '' : text);
      } catch (error) {
        context.addIssue({
          code: 'custom',
          message: `not a regular expression: ${(error as Error).message}`,
        });
      }
    }),
  hooks: z.array(commandSpec).min(1),
});

const wiredEventNames = wiredHookPoints.map((point) => claudeEventNames[point]);

/** Claude Code's events that agentchart has no point for yet: named as such, not as unknown. */
const claudeOnlyEvents = ['Notification'];

/** `hooks` of one settings file: known event names only, each a list of matcher groups. */
export const hooksSettingsSchema = z
  .record(z.string(), z.array(matcherGroup))
  .superRefine((hooks, context) => {
    for (const name of Object.keys(hooks)) {
      if (wiredEventNames.includes(name)) continue;
      const known = Object.values(claudeEventNames).includes(name) || claudeOnlyEvents.includes(name);
      context.addIssue({
        code: 'custom',
        path: [name],
        message: known
          ? `${name} hooks are not run by agentchart yet (supported: ${wiredEventNames.join(', ')})`
          : `unknown hook event "${name}" (supported: ${wiredEventNames.join(', ')})`,
      });
    }
  });

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
        });
      }
  }
  return hooks as Hooks;
}
