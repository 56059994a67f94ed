// The one place the CLI turns what the flags chose into an agent system: workspace, model, permission mode,
// the store, the tools and who answers approvals. `run`, `resume`, `job` and `worker` all start here; the
// flags are read in `agent-flags.ts` and the permissions in `cli-permissions.ts`.
import type { Hooks } from '../hooks/hook-types.ts';
import type { McpServers } from '../mcp/server-config.ts';
import type { PermissionMode } from '../permissions/modes.ts';
import type { Provider } from '../providers/types.ts';
import { type AgentSystem, createAgentSystem } from '../runtime/create-agent-system.ts';
import type { AgentSystemOptions } from '../runtime/options.ts';
import { offeredToolNames } from '../session/mail-log.ts';
import type { LogEvent, SessionStore } from '../session/types.ts';
import { agentDefinitionFolders } from '../settings/agent-definitions.ts';
import { skillFolders } from '../settings/skills.ts';
import { backgroundAgentTools } from '../tools/background-agents.ts';
import { codingTools } from '../tools/coding-tools.ts';
import { taskTool } from '../tools/task.ts';
import { userHome } from './agent-flags.ts';
import type { CliRules } from './cli-permissions.ts';
import { type CliIo, line, painter, wantsColor } from './terminal/io.ts';
import { StdinLines } from './terminal/line-input.ts';
import { type AnswerSource, promptApprover } from './terminal/prompt-approver.ts';

export type CliSystemOptions = {
  io: CliIo;
  provider: Provider;
  store: SessionStore;
  cwd: string;
  mode: PermissionMode;
  /** Allow, ask and deny rules (from flags and settings). */
  rules?: CliRules;
  maxSteps?: number;
  /** MCP servers from the settings files; their tools join the coding tools. */
  mcpServers?: McpServers;
  /** Command hooks from the settings files. */
  hooks?: Hooks;
  /**
   * `--background-agents`: the model may also start agents that work beside it (`backgroundAgentTools()`:
   * spawn_agent, send_message, wait_agents, stop_agent, list_agents). Off by default: each child is a
   * model conversation of its own, and its tokens are spent beside the parent's.
   */
  backgroundAgents?: boolean;
  /** Where answers come from (the chat's terminal); default: stdin's lines. */
  answers?: AnswerSource;
  /**
   * Whether calls that need approval are asked about on the terminal (when stdin is one). `job` says no:
   * its agents run side by side, so nobody is asked and such calls are denied (headless).
   */
  prompt: boolean;
};

/**
 * What every CLI agent system has: the chosen model, the coding tools and `task` (and, asked for, the
 * background agents' tools), store, workspace, mode,
 * and nobody to approve (`approve: 'deny'`): a call that asks is denied, as a worker or a script wants.
 * `cliAgentSystem` puts a person at the terminal in its place when there is one.
 */
export function cliSystemOptions(
  options: Pick<
    CliSystemOptions,
    'provider' | 'store' | 'cwd' | 'mode' | 'mcpServers' | 'hooks' | 'backgroundAgents'
  >,
): AgentSystemOptions {
  const { mcpServers, hooks } = options;
  return {
    model: options.provider,
    tools: [...codingTools(), taskTool(), ...(options.backgroundAgents ? backgroundAgentTools() : [])],
    store: options.store,
    cwd: options.cwd,
    permissionMode: options.mode,
    approve: 'deny',
    ...(mcpServers && Object.keys(mcpServers).length > 0 ? { mcpServers } : {}),
    ...(hooks && Object.keys(hooks).length > 0 ? { hooks } : {}),
  };
}

/**
 * An agent system for the CLI: the coding tools and `task`, the chosen mode, and an approver that asks on
 * the terminal when stdin is one. Without a terminal a call that would ask is denied; that is said once.
 * Contract: call `closePrompt()` when done, so the terminal's input is released.
 */
export function cliAgentSystem(options: CliSystemOptions): {
  system: AgentSystem;
  closePrompt: () => void;
  /** Whether someone at the terminal answers approvals (otherwise they are denied). */
  canAsk: boolean;
} {
  const { io, mode } = options;
  // In plan mode the person is asked about the plan (exit_plan_mode), so plan mode prompts too. The chat
  // (its own `answers`) always can: `/mode` may leave bypass for a mode that asks, on the same system.
  const interactive =
    options.prompt && io.stdin.isTTY === true && (mode !== 'bypass' || options.answers !== undefined);
  const lines = interactive && !options.answers ? new StdinLines(io.stdin) : undefined;
  const answers = options.answers ?? lines;
  const terminal = io.stderr as { columns?: number; rows?: number };
  const approve =
    interactive && answers
      ? promptApprover({
          input: answers,
          output: options.answers ? io.stdout : io.stderr,
          cwd: options.cwd,
          width: terminal.columns || 100,
          ...(terminal.rows ? { pageRows: Math.max(5, terminal.rows - 4) } : {}),
          paint: painter(wantsColor(io.stderr, io.env)),
        })
      : undefined;
  if (options.prompt && !interactive && (mode === 'default' || mode === 'accept-edits')) {
    const asks = mode === 'default' ? 'edits and commands' : 'commands';
    line(
      io.stderr,
      `agentchart: stdin is not a terminal, so nobody can approve tool calls: ${asks} will be denied ` +
        '(use --yes for accept-edits or --mode bypass to allow them).',
    );
  }
  const system = createAgentSystem({ ...workspaceSystemOptions(options), ...(approve ? { approve } : {}) });
  return { system, closePrompt: () => lines?.close(), canAsk: approve !== undefined };
}

/**
 * The options of an agent system working in a workspace as the CLI sets it up — `run`, the chat, `job`
 * and `worker` alike: `cliSystemOptions` with the rules of the flags and settings, the step limit, the
 * workspace's and the user's skills and agent definitions, instruction files and the environment.
 * Nobody approves (`approve: 'deny'`) unless the caller puts a person in its place.
 */
export function workspaceSystemOptions(
  options: Omit<CliSystemOptions, 'answers' | 'prompt'>,
): AgentSystemOptions {
  const { io } = options;
  return {
    ...cliSystemOptions(options),
    ...(options.rules ? { permissions: options.rules } : {}),
    ...(options.maxSteps !== undefined ? { limits: { maxSteps: options.maxSteps } } : {}),
    // The CLI always offers skills: the workspace's and the user's (HOME as the CLI was given it).
    skills: { folders: skillFolders(options.cwd, io.env) },
    // And agent definitions: the workspace's `.agentchart/agents` and `.claude/agents`, then the user's.
    agents: { folders: agentDefinitionFolders(options.cwd, io.env) },
    // Instruction files as Claude Code finds them, the user's own included (docs/instructions-and-skills.md).
    projectInstructions: { home: userHome(io.env) },
    environment: true,
  };
}

/**
 * Whether a CLI agent offers background agents: asked for (`--background-agents`), or a session being
 * continued was started with them (its children come back with it, and they need the tools).
 */
export function wantsBackgroundAgents(flag: boolean | undefined, resumed?: readonly LogEvent[]): boolean {
  return flag === true || (resumed !== undefined && offeredToolNames(resumed).includes('spawn_agent'));
}
