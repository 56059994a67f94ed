import type { Approver } from '../actors/approval.ts';
import type { PreStepHook } from '../actors/pre-step-hook.ts';
import type { Clock, IdGenerator } from '../core/clock.ts';
import type { Hooks as PointHooks } from '../hooks/hook-types.ts';
import { defaultRetryPolicy, type RetryPolicy } from '../machines/retry-policy.ts';
import type { McpServers } from '../mcp/server-config.ts';
import type { PermissionMode } from '../permissions/modes.ts';
import type { PermissionRule } from '../permissions/rules.ts';
import type { Provider } from '../providers/types.ts';
import type { LogEvent, SessionStore } from '../session/types.ts';
import type { TelemetryOptions } from '../telemetry/telemetry-options.ts';
import type { AnyTool } from '../tools/define-tool.ts';
import type { SubagentRecordings } from './replay/subagent-replay.ts';

export type Limits = {
  /** Steps in one turn (default 25). */
  maxSteps: number;
  /** Consecutive steps whose every call named an unknown tool (default 2). */
  maxUnknownToolCalls: number;
  /** Tool calls running side by side (default 10). */
  maxParallelTools: number;
  /** Model request attempts in one step, the first included (default 5). */
  maxAttempts: number;
};

export type { ApprovalAnswer, ApprovalRequest, Approver } from '../actors/approval.ts';
export type { PreStepHook } from '../actors/pre-step-hook.ts';

export const defaultLimits: Limits = {
  maxSteps: 25,
  maxUnknownToolCalls: 2,
  maxParallelTools: 10,
  maxAttempts: defaultRetryPolicy.maxAttempts,
};

/**
 * The host's hooks (docs/hooks-and-settings.md): `preStep` is one function; every other point takes a list of
 * functions, named hooks or command hooks, run in order as a waterfall.
 */
export type Hooks = Omit<PointHooks, 'preStep'> & {
  /**
   * Runs before every step: one function (returning `{ veto }` ends the turn with reason `blocked`), or a
   * list of hooks run as a waterfall (`decision: 'block'` with a `reason` vetoes the step), logged.
   */
  preStep?: PreStepHook | PointHooks['preStep'];
};

/**
 * The options of `createAgentSystem`. Parsed once when the system is created (see options-schema.ts):
 * a bad value, or an option or key this type does not name, throws a `ConfigError` naming it.
 */
export type AgentSystemOptions = {
  model: Provider;
  tools?: AnyTool[];
  store?: SessionStore;
  /** The workspace root (default `process.cwd()`). */
  cwd?: string;
  permissionMode?: PermissionMode;
  /**
   * Rules added to the settings files': deny, then ask, then allow decides (a deny rule always wins; an ask
   * rule asks even where an allow rule or the mode would allow).
   */
  permissions?: {
    allow?: PermissionRule[];
    ask?: PermissionRule[];
    deny?: PermissionRule[];
    /** `true`: bypass mode is refused (a settings file's `disableBypassPermissionsMode` does the same). */
    bypassDisabled?: boolean;
  };
  limits?: Partial<Limits>;
  retry?: Partial<Omit<RetryPolicy, 'maxAttempts'>>;
  ids?: IdGenerator;
  clock?: Clock;
  hooks?: Hooks;
  /**
   * Other models a `request` hook may send a step's request to, by name (docs/hooks-and-settings.md); the
   * hook answers `model` with one of these names (or the agent's own model's name). Not used in a replay,
   * which answers every request from the recording.
   */
  models?: Record<string, Provider>;
  /**
   * OpenTelemetry traces (docs/telemetry.md): spans following the GenAI semantic conventions, made when a
   * tracer provider is set (this option's, or the one registered with `@opentelemetry/api`); message content
   * only with `recordContent: true`. `false`: none. Without a provider, agents are not followed at all.
   */
  telemetry?: TelemetryOptions;
  /**
   * Who answers a call the permission mode or a rule asks about: a function (see `Approver`), `'manual'`
   * (the host answers through `agent.approve()` / `agent.deny()`), or `'deny'`: nobody, on purpose — every
   * such call is denied with the reason, headless, and the turn's `RunResult.denied` lists it. Without this
   * option, tools that would ask (`write_file` and `bash` in `default` mode, `bash` in `accept-edits`, an
   * `ask` rule, a plan in `plan` mode, an MCP server's tools in `default` mode) are a `ConfigError` at
   * `createAgentSystem` (at `createAgent`, `resumeAgent`, `forkAgent` for their own `tools` and servers, at
   * `agent.setPermissionMode` for the new mode), unless a `preTool` hook may answer them: a forgotten
   * approver would otherwise deny every such call while `run()` still says `completed`.
   */
  approve?: Approver | 'deny';
  /**
   * Instruction files in the system prompt (docs/instructions-and-skills.md), default true: `AGENTS.md`,
   * `CLAUDE.md`, `.claude/CLAUDE.md` and `CLAUDE.local.md` in every folder from the repository root down to
   * the workspace, with their `@path` imports. `{ home }` also reads the user's `~/.agentchart/AGENTS.md` and
   * `~/.claude/CLAUDE.md` in that home folder (the CLI passes `HOME`); without it no file of the user's is
   * read, so a host's prompt is the same on every machine. `false` reads none.
   */
  projectInstructions?: boolean | { home: string };
  /** Limits for subagents started by the `task` tool. */
  subagents?: SubagentLimits;
  /** How long a tool result the model reads whole may be. */
  toolOutput?: ToolOutputOptions;
  /** How long sessions are compacted (see docs/long-sessions.md). */
  compaction?: CompactionOptions;
  /**
   * MCP servers whose tools every top-level agent gets as `mcp__<server>__<tool>`, in the shape of Claude
   * Code's `.mcp.json`: `{ command, args?, env?, cwd? }` (stdio) or `{ url, headers? }` (Streamable HTTP,
   * falling back to HTTP+SSE). Each agent starts its own; subagents share their parent's. See
   * docs/mcp.md.
   */
  mcpServers?: McpServers;
  /**
   * Read settings files (docs/hooks-and-settings.md): `'workspace'` reads `~/.agentchart/settings.json` and
   * the workspace's `.claude/settings.json`, `.claude/settings.local.json` and `.agentchart/settings.json`,
   * which are never trusted: their MCP servers and hooks are left out, and their permissions may only be
   * stricter (deny and ask rules and a stricter `defaultMode` apply; allow rules and a looser mode are in
   * `system.settings.untrustedPermissions`, not in force). A rule or a matcher naming no tool (the host's
   * `tools` count) is a `ConfigError`; what is only a warning is in `system.settings.warnings`. A path reads
   * that one file, trusted wholly: name the workspace's file by path to trust it. Their `permissions` add to
   * `permissions` (a deny rule always wins), `defaultMode` applies when `permissionMode` is not given, and
   * `mcpServers` add to `mcpServers`. A bad file throws a `ConfigError` naming the file and the field.
   * Without this option the library reads no settings file.
   */
  settings?: 'workspace' | string;
  /**
   * Skills (docs/instructions-and-skills.md): `true` finds SKILL.md folders in the user's `~/.claude/skills/`
   * and `~/.agentchart/skills/` and the workspace's `.claude/skills/` and `.agentchart/skills/` (a name found
   * first wins); `{ folders }` looks in exactly those folders. The system prompt lists each skill's name and
   * description, and the `skill` tool loads one. Default: none. In a `replay`, where a recorded skill missing
   * on this machine is looked for by name.
   */
  skills?: boolean | { folders: string[] };
  /**
   * Agent definitions (docs/many-agents.md, "Agent definitions"): `true` reads the Markdown files in the
   * workspace's `.agentchart/agents/` and `.claude/agents/`, then the user's `~/.agentchart/agents/` and
   * `~/.claude/agents/` (Claude Code's sub-agent format; a name found first wins); `{ folders }` reads exactly
   * those folders. Their names and descriptions are listed in the system prompt of an agent offered `task` or
   * `spawn_agent`, which start one by `agent_type`; a definition's tools and mode only narrow its parent's. A
   * file that cannot be used is skipped, with the reason in `session.start.config.agentDefinitionsSkipped`;
   * an agent type `backgroundAgentTools` defines itself wins over a file of the same name. Default: none. In
   * a `replay`, the recorded definitions are used.
   */
  agents?: boolean | { folders: string[] };
  /**
   * Tell the model where it works (docs/instructions-and-skills.md): a block in the system prompt with the
   * workspace, platform, today's date (from `clock`), model, and git branch and short status, gathered before
   * the first step of every turn and logged (`environment`) when it changed. Default false in the library (a
   * host's prompt stays as it wrote it, and its tests stay the same on every machine); the CLI turns it on.
   */
  environment?: boolean;
  /**
   * Re-run a recorded session (`replaySession` sets this; see docs/sessions-and-replay.md): what the log
   * recorded answers instead of this machine. No instruction file is read (`session.start` records the
   * files the recording read; the recorded prompt holds their text); the skill catalogue is the recorded
   * one (a recorded skill folder that is not here is found in the replay's workspace at the same place, or
   * by name in `skills`); the environment blocks are the logged ones; no hook runs (each hook point
   * answers with the decisions logged for it); the recorded MCP servers are not started (their tools are
   * offered and answered from the log). With `toolResults: 'recorded'` every tool call is answered with the
   * `tool.result` logged for its call id and no tool runs. The workspace is not checked to be a folder: a
   * replay keeps the recorded path as a name, and checks the folder its live tools run in itself.
   */
  replay?: ReplaySource;
};

export type ToolOutputOptions = {
  /**
   * Characters of a tool result the model reads whole (default 30 000, at least 2 000). A longer result is
   * saved whole beside the session log (`SessionStore.outputsFolder`) before its `tool.result` is logged,
   * and the model gets its head, its tail and a note with the path to read the rest with `read_file`.
   */
  maxChars?: number;
};

/**
 * Compaction replaces the older part of a conversation by a summary the model writes, logged as a
 * `compaction` event (the raw events stay in the log).
 */
export type CompactionOptions = {
  /**
   * Compact automatically when the window fills up, and once after a request the provider refuses as too
   * long (default true). `agent.compact()` works either way.
   */
  enabled?: boolean;
  /** The share of the context window, from above 0 to 1, at which a turn compacts before its next step (default 0.8). */
  threshold?: number;
  /** Turns kept word for word, the running one included (default 2). */
  keepRecentTurns?: number;
  /** Added to every summarising request, e.g. what the summary must keep. */
  instructions?: string;
  /** The model that writes the summaries (default: the agent's own). */
  model?: Provider;
};

export const defaultCompaction = { enabled: true, threshold: 0.8, keepRecentTurns: 2 } as const;

export type SubagentLimits = {
  /**
   * How deep subagents may nest (default 3): a top-level agent has depth 0, its children depth 1, and a
   * `task` call made by an agent at this depth is refused with an error result the model reads.
   */
  maxDepth?: number;
  /** Steps in a subagent's turn (default 10). */
  maxSteps?: number;
  /** A stricter permission mode for subagents; a looser one than the system's is ignored. */
  permissionMode?: PermissionMode;
};

export const defaultSubagentLimits = { maxDepth: 3, maxSteps: 10 };

export type CreateAgentOptions = {
  id?: string;
  /** The system prompt of this agent (project instructions are appended to it). */
  instructions?: string;
  tools?: AnyTool[];
  model?: Provider;
  /** More MCP servers for this agent, added to the system's by name (see `AgentSystemOptions.mcpServers`). */
  mcpServers?: McpServers;
  /**
   * `'worktree'`: the agent works in a new git worktree of the workspace's repository, on its own branch
   * `agentchart/<session>` from the `HEAD` commit, in `<repository>/.agentchart/worktrees/<session>`. Dispose
   * commits what it left there; unchanged, worktree and branch are removed, else both are kept for the host
   * to review and merge (`agent.worktree`). A workspace outside a git repository is a `ConfigError`.
   */
  isolation?: 'worktree';
  /**
   * A W3C `traceparent` (`00-<trace id>-<span id>-<flags>`) the agent's `invoke_agent` span is a child of,
   * when tracing is on (docs/telemetry.md): an incoming request's, or a job's. Default: the span the host
   * has active when it calls `createAgent`, if any. Not written to the session log.
   */
  traceParent?: string;
};

/** `resumeAgent` options: the session keeps its id, and the worktree its `session.start` recorded. */
export type ResumeAgentOptions = Omit<CreateAgentOptions, 'id' | 'isolation'>;

/** `forkAgent` options: those of `createAgent` but isolation, and `atSeq`, where the fork ends. */
export type ForkAgentOptions = Omit<CreateAgentOptions, 'isolation' | 'traceParent'> & { atSeq?: number };

export const defaultInstructions =
  'You are a coding agent working in a software project. Use the tools to inspect and change the workspace. ' +
  'Be precise, make small verifiable changes, and say plainly what you did.';

/** The recording a system re-runs (the `replay` option), and where its tool results come from. */
export type ReplaySource = {
  /** The recorded session's events, from its `session.start`. */
  log: readonly LogEvent[];
  /** `'recorded'`: answered from the log, no tool runs; `'live'` (default): the tools given run again. */
  toolResults?: 'recorded' | 'live';
  /**
   * The recorded subagents of a replayed tree: each child the `task` tool starts gets the session id its
   * parent's recording logged, and runs with its own recorded model answers, clock, ids, hook decisions,
   * environment and (with recorded tool results) tool results (see `replaySession`).
   */
  subagents?: SubagentRecordings;
};
