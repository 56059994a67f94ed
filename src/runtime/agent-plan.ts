// What an agent is made of before any of it exists: where its session comes from, its model, tools,
// workspace and permissions, and what `session.start` records about how it runs. The setup stages
// (agent-resources.ts) build the agent from it.
import type { McpToolSource } from '../mcp/tool-source.ts';
import type { PermissionMode } from '../permissions/modes.ts';
import { contextWindowOf, type Provider } from '../providers/types.ts';
import type { RecordedResults } from '../recorded/recorded-results.ts';
import type { ResumePoint } from '../session/resume-point.ts';
import type { LogEvent, SessionLock } from '../session/types.ts';
import type { AnyTool } from '../tools/define-tool.ts';
import { defaultInstructions, type Limits } from './options.ts';
import type { CompactionConfig, SystemConfig } from './options-schema.ts';
import type { InstructionSetting } from './project-instructions.ts';

/** Where an agent's session comes from. */
export type AgentOrigin =
  | { kind: 'new' }
  /**
   * `events` are the loaded log; `repaired` what repair appends to close it; `lock` the session's lock,
   * taken before the log was read, which the agent then owns.
   */
  | {
      kind: 'resume';
      events: LogEvent[];
      repaired: LogEvent[];
      lock?: SessionLock | undefined;
      /** Where it continues: a turn left waiting is continued, not repaired. */
      point?: ResumePoint;
    }
  /** `seed` is the new session's first events (a new session.start and the copied prefix). */
  | { kind: 'fork'; seed: LogEvent[] };

export type AgentPlan = {
  agentId: string;
  origin: AgentOrigin;
  provider: Provider;
  tools: AnyTool[];
  instructions: string;
  cwd: string;
  permissionMode: PermissionMode;
  projectInstructions: InstructionSetting;
  config: Record<string, unknown>;
  parent?: string;
  /** The MCP servers this agent starts and owns (a subagent uses its parent's through its tools). */
  mcp?: McpToolSource | undefined;
  /** Where this agent's skills come from (none for a subagent). */
  skills?: SystemConfig['skills'];
  /** Where its environment block comes from (none: no block). */
  environment?: SystemConfig['environment'];
  /** Answers every call with the recorded result instead of running the tool (a replay). */
  toolResults?: RecordedResults | undefined;
};

/**
 * What an agent is made of: its origin, model, tools (as the runtime runs them), workspace and permissions,
 * and what `session.start` records about how it runs (the tools stage adds the system prompt and tools).
 */
export function agentPlan(parts: {
  agentId: string;
  origin: AgentOrigin;
  provider: Provider;
  tools: AnyTool[];
  cwd: string;
  permissions: { mode: PermissionMode };
  limits: Limits;
  projectInstructions: InstructionSetting;
  compaction: CompactionConfig;
  options: { instructions?: string; child?: { parent: string } };
  mcp?: McpToolSource | undefined;
  skills?: SystemConfig['skills'];
  environment?: SystemConfig['environment'];
  toolResults?: RecordedResults | undefined;
}): AgentPlan {
  const { agentId, origin, provider, tools, cwd, permissions, limits, options } = parts;
  return {
    agentId,
    origin,
    provider,
    tools,
    instructions: options.instructions ?? defaultInstructions,
    cwd,
    permissionMode: permissions.mode,
    projectInstructions: parts.projectInstructions,
    config: {
      provider: provider.name,
      model: provider.model,
      // The window accounting and automatic compaction used: a replay reports the same one.
      contextWindow: contextWindowOf(provider),
      cwd,
      permissionMode: permissions.mode,
      limits,
      // The policy compaction followed, so a replay compacts at the same steps with the same instructions.
      compaction: compactionPolicy(parts.compaction),
    },
    ...(options.child ? { parent: options.child.parent } : {}),
    ...(parts.mcp ? { mcp: parts.mcp } : {}),
    ...(parts.skills && !options.child ? { skills: parts.skills } : {}),
    ...(parts.environment ? { environment: parts.environment } : {}),
    ...(parts.toolResults ? { toolResults: parts.toolResults } : {}),
  };
}

/** What of the compaction option a log can hold (the summarising model is a provider, not a value). */
function compactionPolicy(compaction: CompactionConfig): Record<string, unknown> {
  const { enabled, threshold, keepRecentTurns, instructions } = compaction;
  return { enabled, threshold, keepRecentTurns, ...(instructions !== undefined ? { instructions } : {}) };
}
