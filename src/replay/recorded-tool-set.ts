// The built-in tools a recorded session ran with, read back from its `session.start`, so that a replay
// (`agentchart replay --check`, `expectReplay`, time travel) offers what the recording offered:
// `agentchart run` and the chat add `task` to the coding tools, a library host may give the coding tools alone
// (or add background agents' tools, with their default options).
import { exitPlanModeName, type PermissionMode, toolsOfferedInMode } from '../permissions/modes.ts';
import { isEvent, type LogEvent } from '../session/types.ts';
import { backgroundAgentTools } from '../tools/background-agents.ts';
import { codingTools } from '../tools/coding-tools.ts';
import type { AnyTool } from '../tools/define-tool.ts';
import { skillToolName } from '../tools/skill.ts';
import { isLegacyTaskSpec, legacyTaskTool, taskTool } from '../tools/task.ts';

/** The host's tools for a replay, and the recorded names no built-in tool answers to. */
export type RecordedToolSet = { tools: AnyTool[]; unknown: string[] };

/**
 * Every built-in tool whose name `session.start` lists, in the order the CLI gives them, plus those the
 * recorded mode kept from the list (plan mode offers no write or exec tool, yet the host had them: they
 * come back when the mode changes). Names the runtime supplies itself in a replay — `exit_plan_mode`,
 * `skill`, MCP tools (`mcp__…`) — are not the host's; any other name is `unknown`: a tool of the host's
 * own that only `--setup` can give.
 */
export function recordedToolSet(recorded: readonly LogEvent[]): RecordedToolSet {
  const start = recorded[0];
  if (!start || !isEvent(start, 'session.start')) return { tools: codingTools(), unknown: [] };
  const config = start.data.config;
  const specs = Array.isArray(config.tools) ? (config.tools as { name?: unknown }[]) : [];
  const names = new Set(specs.flatMap((spec) => (typeof spec.name === 'string' ? [spec.name] : [])));
  // A recording from before `agent_type` offered the task tool without it: the replay offers it as recorded.
  const legacyTask = specs.some((spec) => spec.name === 'task' && isLegacyTaskSpec(spec));
  const catalogue = [...codingTools(), legacyTask ? legacyTaskTool() : taskTool(), ...backgroundAgentTools()];
  const mode = (
    typeof config.permissionMode === 'string' ? config.permissionMode : 'default'
  ) as PermissionMode;
  const offered = new Set(toolsOfferedInMode(catalogue, mode).map((tool) => tool.name));
  const tools = catalogue.filter((tool) => names.has(tool.name) || !offered.has(tool.name));
  const known = new Set([...catalogue.map((tool) => tool.name), exitPlanModeName, skillToolName]);
  const unknown = [...names].filter((name) => !known.has(name) && !name.startsWith('mcp__'));
  return { tools, unknown };
}
