import type { AnyTool } from '../tools/define-tool.ts';

/**
 * How much the agent may do without asking:
 * - `plan`: read-only. Tools with access `read` or `none` run; `write` and `exec` are denied (and not offered).
 * - `default`: `read`/`none` run; `write` and `exec` ask the host.
 * - `accept-edits`: `read`/`none`/`write` run; `exec` asks.
 * - `bypass`: everything runs.
 *
 * What each mode decides for each tool access is `decideByMode` (decide.ts).
 */
export type PermissionMode = 'plan' | 'default' | 'accept-edits' | 'bypass';

/** Every mode, strictest first. */
export const permissionModes: readonly PermissionMode[] = ['plan', 'default', 'accept-edits', 'bypass'];

/** The mode of a system (and of the CLI) that names none. */
export const defaultPermissionMode: PermissionMode = 'default';

/** Whether a value (from a log or a host) names a permission mode. */
export function isPermissionMode(value: unknown): value is PermissionMode {
  return typeof value === 'string' && (permissionModes as readonly string[]).includes(value);
}

/**
 * The tool a model in plan mode calls with its plan; the host accepts it (and names the next mode) or
 * denies it. Offered only in plan mode, and always put to the host (see `AgentPermissionGate.decide`).
 * The tool itself is in `plan-mode.ts`; the name stands alone here so that what only needs the modes
 * (`agentchart --help`, settings checks) does not load zod and the tool layer.
 */
export const exitPlanModeName = 'exit_plan_mode';

/** The stricter of two permission modes (a subagent never runs looser than its parent). */
export function stricterMode(a: PermissionMode, b: PermissionMode): PermissionMode {
  return permissionModes.indexOf(a) <= permissionModes.indexOf(b) ? a : b;
}

/** The tools a model is offered in a mode: plan mode offers only tools with access `read` or `none`. */
export function toolsOfferedInMode<T extends AnyTool>(tools: readonly T[], mode: PermissionMode): T[] {
  if (mode !== 'plan') return [...tools];
  return tools.filter((tool) => tool.access === 'read' || tool.access === 'none');
}
