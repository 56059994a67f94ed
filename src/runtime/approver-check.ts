// A system with nobody to approve (no `approve` option) and tools that would ask for approval: every such
// call would be denied, the turn would still say `completed`, and a job would report success. That is
// refused at creation, saying how to answer the asks, or to deny them on purpose (`approve: 'deny'`).
import { ConfigError } from '../errors/config-error.ts';
import { type AskingTool, askingTools } from '../permissions/asking-tools.ts';
import { stricterMode } from '../permissions/modes.ts';
import type { ToolAccess } from '../tools/define-tool.ts';
import type { SystemConfig } from './options-schema.ts';

/**
 * Throws a `ConfigError` naming the tools that would ask when nobody can answer: no approver, no explicit
 * `approve: 'deny'`, and no `preTool` hook (a hook may allow what the mode asks about). With the `task`
 * tool, the subagents' mode counts too: a stricter `subagents.permissionMode` asks where the parent's
 * mode does not, and a child asks its parent's (absent) approver.
 */
export function checkApprover(
  call: string,
  tools: readonly { name: string; access: ToolAccess }[],
  config: SystemConfig,
  preToolHooks: boolean,
): void {
  if (config.approve !== undefined || config.denyAsks || preToolHooks) return;
  const asking = askingTools(tools, { mode: config.permissionMode, ...config.permissions });
  const childMode = config.subagents.permissionMode;
  if (childMode !== undefined && tools.some((tool) => tool.name === 'task')) {
    const mode = stricterMode(config.permissionMode, childMode);
    for (const child of askingTools(tools, { mode, ...config.permissions }))
      if (!asking.some((known) => known.tool === child.tool)) asking.push(child);
  }
  if (asking.length === 0) return;
  throw new ConfigError(
    `${call}: ${describe(asking)} and there is no approver, so every such call would be denied. ` +
      "Pass approve: a function that answers, 'manual' (answer with agent.approve/agent.deny), or 'deny' " +
      "to deny them on purpose (headless); or let them run with permissionMode 'accept-edits' or 'bypass' " +
      'or permissions.allow rules.',
  );
}

/** `bash (exec access needs approval in default mode) and write_file (…) need approval`. */
function describe(asking: readonly AskingTool[]): string {
  const byReason = new Map<string, string[]>();
  for (const { tool, reason } of asking) byReason.set(reason, [...(byReason.get(reason) ?? []), tool]);
  const parts = [...byReason].map(([reason, names]) => `${names.join(', ')} (${reason})`);
  const listed = parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
  return `${listed} ${asking.length === 1 ? 'needs' : 'need'} approval,`;
}
