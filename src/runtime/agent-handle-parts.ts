import type { AnyActorRef } from 'xstate';
import type { McpServerStatus } from '../mcp/tool-source.ts';
import type { PermissionMode } from '../permissions/modes.ts';
import type { SessionLog } from '../session/session-log.ts';
import type { ChildAgent } from './background/child-agent.ts';
import type { LiveBus } from './live-bus.ts';
import type { OutputChecks } from './output-checks.ts';
import type { AgentWorktreeState } from './worktrees/worktree-life.ts';

/** What a handle is made of: the agent's actor, its log and bus, and what the system lends it. */
export type AgentHandleParts = {
  ref: AnyActorRef;
  log: SessionLog;
  bus: LiveBus;
  /** The host's id generator, checked: a bad id is a ConfigError naming the call that needed it. */
  nextId: (call: string) => string;
  /** Gives back what the launch took (the actor, the ports, the system's record of the agent). */
  release: () => void;
  /** The MCP servers the agent started (none for a subagent: it uses its parent's). */
  servers: () => McpServerStatus[];
  /** The permission mode calls are decided in now (the agent's permission gate). */
  mode: () => PermissionMode;
  /** The loosest mode this agent may be switched to: a subagent's parent's mode now; none for others. */
  modeCeiling: () => PermissionMode | undefined;
  /** Throws the `ConfigError` of a mode in which the agent's tools would ask and nobody can answer. */
  checkMode: (mode: PermissionMode) => void;
  /** The background children the agent started (`spawn_agent`), oldest first. */
  children: () => ChildAgent[];
  /** The checks of the agent's typed runs: a run registers its schema here before it is queued. */
  outputs: OutputChecks;
  /** An isolated agent's worktree: where it is, then (after dispose) how it ended. */
  worktree: () => AgentWorktreeState | undefined;
};
