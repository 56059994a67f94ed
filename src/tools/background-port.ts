// What a tool call may do with background agents (`ToolContext.backgroundAgents`): the capability the
// runtime binds to the calling agent and call, and the shapes of what it answers. The tools that use it are
// in background-agents.ts; the runtime implements it in runtime/background/.
import type { StopReason, SupervisionSpec } from '../session/types.ts';
import type { OutputOptions } from './output-schema.ts';

/**
 * What `spawn_agent` asks for: a prompt, and how the child is made (a named type, tools, prompt); with
 * `output` (an agent type's, see `OutputOptions`), the child's run is typed: its final answer, the result
 * its parent reads, is JSON matching that schema.
 */
export type BackgroundSpawnRequest = OutputOptions & {
  prompt: string;
  /** A short label for the host and for `list_agents`. */
  description: string;
  /** The name of the agent type the child was made from, if any (recorded for `list_agents`). */
  agentType?: string;
  /** The agent definition (from files) the child is made from, which narrows its tools, mode and steps. */
  agentDefinition?: string;
  /** Whether the caller's turn must hear from the child before it ends. */
  wait: boolean;
  /** Names of the caller's tools the child may use (default: all of them); `send_message` is always added. */
  tools?: string[];
  /** The child's system prompt (default: the runtime's default instructions). */
  instructions?: string;
  /** `'worktree'`: the child works in a git worktree of its own (its agent type's `isolation`). */
  isolation?: 'worktree';
  /** How many children of the caller may run at once; one more is refused. */
  maxRunning: number;
  /** Restart the child on failure (its agent type's policy, or the tools' default); absent: never. */
  supervision?: SupervisionSpec;
};

/** One agent as `list_agents` and `wait_agents` show it to the model. */
export type BackgroundAgentStatus = {
  id: string;
  /** `child`: started by the caller; `parent`: the agent that started the caller. */
  relation: 'child' | 'parent';
  /** `running`: working (it reads messages); `finished`: its turn ended and its result was sent; `stopped`. */
  status: 'running' | 'finished' | 'stopped';
  reason?: StopReason;
  description?: string;
  agentType?: string;
};

/** How a wait ended: each agent waited for, the senders whose mail came meanwhile, and whether time ran out. */
export type BackgroundWaitOutcome = {
  agents: BackgroundAgentStatus[];
  /** Who sent mail to the caller while it waited (the mail itself is read at the caller's next step). */
  arrived: string[];
  timedOut: boolean;
};

/**
 * Background agents as one tool call of one agent sees them. Every method refuses a request it cannot
 * carry out (an unknown id, a finished agent, a limit) with a `ConfigError` whose message the model reads.
 * Contract: `spawn` resolves once the child is live, linked (`agent.spawned`) and given its prompt; `send`
 * has delivered the message (both logs hold it) when it resolves; `wait` resolves on the first mail from one
 * of `ids`, once none of them runs, when `timeoutMs` passes on the runtime's clock, or when the call is
 * cancelled; `stop` resolves once the child is disposed.
 */
export interface BackgroundAgentsPort {
  spawn(request: BackgroundSpawnRequest): Promise<{ id: string; notGranted?: string[] }>;
  send(to: string, text: string): Promise<{ id: string; to: string }>;
  wait(ids: readonly string[] | undefined, timeoutMs: number): Promise<BackgroundWaitOutcome>;
  /** `stopped`: this call stopped it (false: it had already finished or been stopped). */
  stop(id: string): Promise<{ agent: BackgroundAgentStatus; stopped: boolean }>;
  list(): BackgroundAgentStatus[];
}
