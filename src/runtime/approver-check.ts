// A system with nobody to approve (no `approve` option) and tools that would ask for approval: every such
// call would be denied, the turn would still say `completed`, and a job would report success. That is
// refused at creation, saying how to answer the asks, or to deny them on purpose (`approve: 'deny'`).
import { ConfigError } from '../errors/config-error.ts';
import { type AskingTool, askingTools } from '../permissions/asking-tools.ts';
import { type PermissionMode, stricterMode } from '../permissions/modes.ts';
import type { ToolAccess } from '../tools/define-tool.ts';
import type { SystemConfig } from './options-schema.ts';

/** What `checkApprover` looks at: the call that is checked, what the agent gets, and the system. */
export type ApproverCheck = {
  /** The public call, named in the error (`createAgentSystem`, `createAgent`, `agent.setPermissionMode`). */
  call: string;
  tools: readonly { name: string; access: ToolAccess }[];
  /** MCP servers by name: their tools are not known before they connect, so each counts as a write tool. */
  mcpServers: readonly string[];
  config: SystemConfig;
  /** The mode to check in, when not the system's (a switch of mode). */
  mode?: PermissionMode;
  /** A `preTool` hook may answer what the mode asks about. */
  preToolHooks: boolean;
};

/**
 * Throws a `ConfigError` naming the tools that would ask when nobody can answer: no approver, no explicit
 * `approve: 'deny'`, and no `preTool` hook. With the `task` tool the subagents' mode counts too: a
 * stricter `subagents.permissionMode` asks where the parent's mode does not, and a child asks its
 * parent's (absent) approver.
 */
export function checkApprover(check: ApproverCheck): void {
  const { config } = check;
  if (config.approve !== undefined || config.denyAsks || check.preToolHooks) return;
  // An MCP tool is `write` unless its server marks it read-only (mcp/mcp-tool.ts).
  const servers = check.mcpServers.map((server) => ({ name: `mcp__${server}__*`, access: 'write' as const }));
  const tools = [...check.tools, ...servers];
  const mode = check.mode ?? config.permissionMode;
  const asking = askingTools(tools, { mode, ...config.permissions });
  const childMode = config.subagents.permissionMode;
  if (childMode !== undefined && tools.some((tool) => tool.name === 'task')) {
    const stricter = stricterMode(mode, childMode);
    for (const child of askingTools(tools, { mode: stricter, ...config.permissions }))
      if (!asking.some((known) => known.tool === child.tool)) asking.push(child);
  }
  if (asking.length === 0) return;
  throw new ConfigError(
    `${check.call}: ${describe(asking)} and there is no approver, so every such call would be denied. ` +
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

/**
 * `checkApprover` for a launch's own tools (see `AgentSystemOptions.approve`): the system's, or an agent's
 * own (`tools` replace the system's, `mcpServers` add to them). An agent with neither has the system's,
 * checked at creation; a switch of mode is checked by the handle.
 */
export function checkOwnTools(
  system: { config: SystemConfig; preToolHooks: boolean },
  call: string,
  own: {
    tools?: readonly { name: string; access: ToolAccess }[] | undefined;
    mcpServers?: object | undefined;
  },
): void {
  const { config, preToolHooks } = system;
  if (call !== 'createAgentSystem' && own.tools === undefined && own.mcpServers === undefined) return;
  checkApprover({
    call,
    tools: own.tools ?? config.tools,
    mcpServers: Object.keys({ ...config.mcpServers, ...own.mcpServers }),
    config,
    preToolHooks,
  });
}
