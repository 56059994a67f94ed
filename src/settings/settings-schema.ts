// What one settings file may hold, parsed once where it enters. The keys agentchart uses are checked here;
// Claude Code's keys it does not use are taken off before parsing (claude-code-keys.ts) and listed by
// `agentchart config`; any other key is refused, with the nearest known key suggested.
import { z } from 'zod/v4';
import { nearestKey } from '../core/nearest-key.ts';
import { hooksSettingsSchema } from '../hooks/settings-schema.ts';
import { mcpServersFileSchema } from '../mcp/server-config.ts';
import { type PermissionMode, permissionModes } from '../permissions/modes.ts';
import { ruleProblem } from '../permissions/rules.ts';
import { notUsedPermissionKeys, notUsedSettingsKeys } from './claude-code-keys.ts';
import { serverListSchema } from './mcp-server-filter.ts';

const rule = z.string().superRefine((text, context) => {
  const problem = ruleProblem(text);
  if (problem !== undefined)
    context.addIssue({ code: 'custom', message: `${JSON.stringify(text)}: ${problem}` });
});

/** Claude Code's names for agentchart's modes (settings-reference `defaultMode`; `manual` is `default`). */
const claudeModeNames: Readonly<Record<string, PermissionMode>> = {
  acceptEdits: 'accept-edits',
  bypassPermissions: 'bypass',
  manual: 'default',
};

/** Claude Code's modes agentchart has no counterpart for: refused, since any stand-in would decide differently. */
const claudeModesNotHere: Readonly<Record<string, string>> = {
  auto: 'a classifier decides there; agentchart has no such mode',
  dontAsk:
    'it denies whatever would ask; agentchart has no such mode (without a terminal, ask already means deny)',
};

const modeSchema = z.string().transform((text, context): PermissionMode => {
  if ((permissionModes as readonly string[]).includes(text)) return text as PermissionMode;
  if (Object.hasOwn(claudeModeNames, text)) return claudeModeNames[text]!;
  const modes = [...permissionModes, ...Object.keys(claudeModeNames)].map((mode) => `"${mode}"`).join('|');
  const reason = Object.hasOwn(claudeModesNotHere, text)
    ? `"${text}" is not supported: ${claudeModesNotHere[text]}`
    : `Invalid option: expected one of ${modes}`;
  context.addIssue({ code: 'custom', message: reason });
  return z.NEVER;
});

const permissionsSchema = z.strictObject({
  /** Rules whose calls run without asking: `read_file`, `Bash(npm test:*)`, `write_file(src/**)`. */
  allow: z.array(rule).optional(),
  /** Rules whose calls always ask (deny, then ask, then allow: an ask rule beats every allow). */
  ask: z.array(rule).optional(),
  /** Rules whose calls are always denied; a deny rule wins over every allow. */
  deny: z.array(rule).optional(),
  /** The permission mode when no `--mode` or `--yes` is given; Claude Code's names are read too. */
  defaultMode: modeSchema.optional(),
  /** `"disable"`: bypass mode may not be used (Claude Code's `--dangerously-skip-permissions` switch-off). */
  disableBypassPermissionsMode: z.literal('disable').optional(),
  // Claude Code's, accepted and not used (listed by `agentchart config`): see claude-code-keys.ts.
  additionalDirectories: z.array(z.string()).optional(),
  disableAutoMode: z.literal('disable').optional(),
});

/**
 * Claude Code's `sandbox`: runs Bash in an OS sandbox there. agentchart has none, so a file that turns it on
 * is refused (a command meant to run sandboxed would run unsandboxed); without `enabled: true` it is not used.
 */
const sandboxSchema = z.looseObject({ enabled: z.boolean().optional() }).superRefine((sandbox, context) => {
  if (sandbox.enabled === true)
    context.addIssue({
      code: 'custom',
      path: ['enabled'],
      message:
        'agentchart does not run bash in a sandbox, so commands would run unsandboxed: remove "enabled": true ' +
        '(and rely on permission rules and hooks) or keep using Claude Code for this workspace',
    });
});

/** The keys of one settings file agentchart reads (the rest of Claude Code's are taken off first). */
export const settingsSchema = z.strictObject({
  $schema: z.string().optional(),
  permissions: permissionsSchema.optional(),
  /** MCP servers by name, in `.mcp.json`'s shape (see docs/mcp.md). */
  mcpServers: mcpServersFileSchema.optional(),
  /** Command hooks by Claude Code event name (see docs/hooks-and-settings.md). */
  hooks: hooksSettingsSchema.optional(),
  /** `true`: the settings files' command hooks do not run (the host's own still do). */
  disableAllHooks: z.boolean().optional(),
  sandbox: sandboxSchema.optional(),
  /** Servers that may start / may never start (mcp-server-filter.ts). */
  allowedMcpServers: serverListSchema.optional(),
  deniedMcpServers: serverListSchema.optional(),
});

export type Settings = z.infer<typeof settingsSchema>;

/** One value a file gives that agentchart accepts and does not use, with why. */
export type NotUsedValue = { key: string; value: unknown; why: string };

/** The values of a parsed file that are accepted and not used (permissions' and `sandbox`). */
export function notUsedParsed(settings: Settings): NotUsedValue[] {
  const found: NotUsedValue[] = [];
  for (const [key, why] of notUsedPermissionKeys) {
    const value = (settings.permissions as Record<string, unknown> | undefined)?.[key];
    if (value !== undefined) found.push({ key: `permissions.${key}`, value, why });
  }
  if (settings.sandbox !== undefined)
    found.push({
      key: 'sandbox',
      value: settings.sandbox,
      why: 'agentchart has no sandbox (it is not enabled)',
    });
  return found;
}

/**
 * Splits a file's top level into what the schema reads and Claude Code's keys agentchart does not use. A
 * value that is not an object is left to the schema to refuse.
 */
export function takeNotUsed(json: unknown): { rest: unknown; notUsed: NotUsedValue[] } {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { rest: json, notUsed: [] };
  const rest: Record<string, unknown> = {};
  const notUsed: NotUsedValue[] = [];
  for (const [key, value] of Object.entries(json)) {
    const why = notUsedSettingsKeys.get(key);
    if (why === undefined) rest[key] = value;
    else notUsed.push({ key, value, why });
  }
  return { rest, notUsed };
}

/** "did you mean" for keys the schema did not recognise at `path` (the top level or `permissions`). */
export function unknownKeyHint(path: readonly PropertyKey[], keys: readonly string[]): string {
  const known =
    path.length === 0
      ? [...Object.keys(settingsSchema.shape), ...notUsedSettingsKeys.keys()]
      : path.length === 1 && path[0] === 'permissions'
        ? Object.keys(permissionsSchema.shape)
        : [];
  const hints = keys.flatMap((key) => {
    const near = nearestKey(key, known);
    return near === undefined ? [] : [`"${key}": did you mean "${near}"?`];
  });
  return hints.length === 0 ? ' (neither agentchart nor Claude Code has it)' : ` (${hints.join('; ')})`;
}
