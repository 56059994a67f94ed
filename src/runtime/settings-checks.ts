// Checks of a system's settings that need the parsed host options: rules and matchers naming no tool, and
// bypass mode where a settings file switched it off. Both throw a `ConfigError` before anything starts.
import { ConfigError } from '../errors/config-error.ts';
import type { LoadedSettings } from '../settings/settings-types.ts';
import { checkToolNames, settingsEntries } from '../settings/tool-name-check.ts';

/** What of the parsed `createAgentSystem` options the tool-name check reads. */
export type HostToolOptions = {
  tools?: readonly { name: string }[] | undefined;
  permissions?:
    | { allow?: string[] | undefined; ask?: string[] | undefined; deny?: string[] | undefined }
    | undefined;
  mcpServers?: Record<string, unknown> | undefined;
  hooks?: Record<string, unknown> | undefined;
};

/** The points whose command-hook matchers name tools (the others match a source or a trigger). */
const toolPoints = ['preTool', 'postTool'] as const;

/**
 * Refuses a rule (the settings files' and the host's `permissions`) or a hook matcher (a settings file's,
 * or a command hook in the host's `hooks`) that names no tool, now that the host's tools are known
 * (tool-name-check.ts); what is only a warning goes to `settings.warnings`. A host's command hook is the
 * same guard as a copied one, so a matcher naming nothing is as inert there: refused alike.
 */
export function checkRuleTools(parsed: HostToolOptions, settings: LoadedSettings | undefined): void {
  const hostRules = (['allow', 'ask', 'deny'] as const).flatMap((list) =>
    (parsed.permissions?.[list] ?? []).map((rule, index) => ({
      where: 'createAgentSystem',
      place: `permissions.${list}[${index}]`,
      rule,
      list,
    })),
  );
  const hostMatchers = toolPoints.flatMap((point) => {
    const list = parsed.hooks?.[point];
    return (Array.isArray(list) ? list : []).flatMap((hook, index) => {
      const { type, matcher } = (hook ?? {}) as { type?: unknown; matcher?: unknown };
      return type === 'command' && typeof matcher === 'string'
        ? [{ where: 'createAgentSystem', place: `hooks.${point}[${index}].matcher`, matcher }]
        : [];
    });
  });
  const servers = { ...settings?.mcpServers, ...parsed.mcpServers };
  const { errors, warnings } = checkToolNames(
    [...(settings ? settingsEntries(settings) : []), ...hostRules, ...hostMatchers],
    {
      hostTools: (parsed.tools ?? []).map((tool) => tool.name),
      mcpServers: [...Object.keys(servers), ...(settings?.untrustedMcpServers ?? [])],
    },
  );
  if (errors.length > 0) throw new ConfigError(errors.join('\n'));
  settings?.warnings.push(...warnings);
}

/** Bypass mode asked for where a settings file switched it off: refused, naming the file. */
export function bypassRefused(settings: LoadedSettings | undefined): ConfigError {
  const file = settings?.sources.find(
    (source) => source.key === 'permissions.disableBypassPermissionsMode',
  )?.file;
  const where =
    file === undefined
      ? 'permissions.bypassDisabled'
      : `permissions.disableBypassPermissionsMode in the settings file ${file}`;
  return new ConfigError(`permission mode "bypass" is disabled by ${where}`);
}
