// From a launch (`createAgent`, `resumeAgent`, `forkAgent`, or a subagent's `task` call) to an agent body:
// decides what the agent runs with — model, clock, tools, permissions, limits, MCP servers, hooks —
// writes it down as its spec, and hands the body the system's shared services.

import { extended } from '../core/extended.ts';
import { connectWithSdkLazily } from '../mcp/lazy-connect.ts';
import { McpServerSet } from '../mcp/mcp-servers.ts';
import { RecordedMcpServers } from '../mcp/recorded-servers.ts';
import type { McpServers } from '../mcp/server-config.ts';
import type { McpToolSource } from '../mcp/tool-source.ts';
import { AgentPermissionGate, type PermissionSettings } from '../permissions/gate.ts';
import type { Provider } from '../providers/types.ts';
import { mailGatedModel } from '../recorded/mail-gate.ts';
import { RecordedResults } from '../recorded/recorded-results.ts';
import { recordedJobPlace, recordedSystemPrompt } from '../session/recorded-system.ts';
import type { SessionLog } from '../session/session-log.ts';
import type { AgentDefinition, DefinitionContext } from '../settings/agent-definitions.ts';
import { agentTypeNamesOf } from '../tools/background-agents.ts';
import type { AnyTool } from '../tools/define-tool.ts';
import { AgentBody, type AgentRegistry, type BodyParts } from './agent-body.ts';
import { type AgentOrigin, type AgentSpec, agentSpec } from './agent-spec.ts';
import type { BackgroundAgents } from './background/background-agents.ts';
import type { ChildSpec, TreeMember } from './child-launch.ts';
import { type HookConsultation, recordedHooks } from './hook-consultation.ts';
import type { JobPlace } from './jobs/job-types.ts';
import { type CreateAgentOptions, defaultInstructions, type Limits } from './options.ts';
import type { SystemConfig } from './options-schema.ts';
import { OutputChecks } from './output-checks.ts';
import type { RecordedSubagent } from './replay/subagent-replay.ts';
import type { SavedOutputFolders } from './saved-outputs.ts';
import type { AgentTree } from './subagents.ts';
import type { WorkspaceCheck } from './workspace-check.ts';
import { AgentWorktree } from './worktrees/agent-worktree.ts';
import { type Isolation, isolationOf, type Place } from './worktrees/launch-isolation.ts';

/** `createAgent` options plus, for a subagent, how its parent launches it; for a job's task, its place. */
export type LaunchOptions = CreateAgentOptions & { child?: ChildSpec; job?: JobPlace };

/** One launch: the agent's id, where its session comes from, and what the caller asked for. */
export type Launch = {
  agentId: string;
  origin: AgentOrigin;
  options: LaunchOptions;
  /** A background child's: its parent's call was cancelled, so a creation still under way rolls back. */
  signal?: AbortSignal;
};

/** What every agent of one system shares: its parsed options and the services built once for all. */
export type SystemServices = {
  config: SystemConfig;
  hooks: HookConsultation;
  tree: AgentTree;
  background: BackgroundAgents;
  registry: AgentRegistry;
  savedOutputs: SavedOutputFolders;
  workspaces: WorkspaceCheck;
  /** One index of the recorded results for the system's agents (a replay with recorded tools). */
  toolResults: RecordedResults | undefined;
};

/** The launch's body, and the ids its handle gives inbox entries (a replayed subagent's recorded ones). */
export type Assembled = { body: AgentBody; nextId: (call: string) => string };

/** What a launch runs with, decided once from the system's options, the caller's and a recording's. */
type Choices = {
  /** A replayed subagent's own recording (model answers, clock, ids, hook decisions). */
  recorded: RecordedSubagent | undefined;
  provider: Provider;
  permissions: PermissionSettings;
  limits: Limits;
  tools: readonly AnyTool[];
  mcp: McpToolSource | undefined;
  hooks: HookConsultation;
  /** The agent's worktree, when it is isolated (or its recording was). */
  isolation: Isolation | undefined;
  /** Where it works: its worktree's folder, else the launch's workspace. */
  cwd: string;
};

export function assembleAgent(system: SystemServices, launch: Launch, place: Place): Assembled {
  const { config } = system;
  const { agentId, options } = launch;
  // A subagent of a replayed tree re-runs from its own log (see `SubagentRecordings`); its replay clock
  // reads how many events that log holds, once the body has opened it.
  let body: AgentBody | undefined;
  const recorded = options.child
    ? config.subagentReplay?.session(agentId, () => body?.log?.events.length ?? 0)
    : undefined;
  // A replayed session waits, before each recorded answer, for the mail its recording had by then.
  const replayed = recorded?.events ?? (options.child ? undefined : config.hookReplay);
  const model = recorded?.model ?? options.model ?? config.model;
  const isolation = isolationOf({
    planned: place.worktree,
    origin: launch.origin,
    replayed,
    replaying: config.hookReplay !== undefined,
  });
  const cwd = isolation?.plan.cwd ?? place.cwd;
  const choices: Choices = {
    recorded,
    provider: replayed ? mailGatedModel(model, replayed, () => body?.log) : model,
    permissions: options.child?.permissions ?? rootPermissions(config),
    limits: options.child?.limits ?? config.limits,
    tools: options.tools ?? config.tools,
    mcp: options.child ? undefined : mcpServersOf(config, options.mcpServers, cwd),
    hooks: recorded ? recordedHooks(recorded.events) : system.hooks,
    isolation,
    cwd,
  };
  body = new AgentBody(specOf(system, launch, choices), partsOf(system, launch, choices));
  return { body, nextId: recorded?.nextId ?? config.nextId };
}

function specOf(system: SystemServices, { agentId, origin, options }: Launch, choices: Choices): AgentSpec {
  const { config } = system;
  const { recorded, hooks } = choices;
  // Named by the public call that needed the id (a subagent's launch is the `task` tool's).
  const call = options.child ? 'task' : launchCalls[origin.kind];
  return agentSpec({
    agentId,
    key: `agent:${agentId}#${config.nextId(call)}`,
    origin,
    provider: choices.provider,
    instructions:
      (recorded ? recordedSystemPrompt(recorded.events) : undefined) ??
      options.instructions ??
      defaultInstructions,
    parent: options.child?.parent,
    cwd: choices.cwd,
    ...(choices.isolation ? { worktree: choices.isolation.plan.record } : {}),
    isolated: choices.isolation?.live === true,
    permissionMode: choices.permissions.mode,
    limits: choices.limits,
    compaction: config.compaction,
    retry: config.retry,
    hooks: hooks.flags,
    // Before every step only when a hook or MCP tool lists ask for it; otherwise the turn runs the pre-step
    // work on its first step and after a `mode.changed`, which saves a spawned actor and two events a step.
    preStepEveryStep:
      config.preStep !== undefined || choices.mcp !== undefined || hooks.flags.preStep === true,
    preStepAtTurnStart: environmentEachTurn(config, recorded),
    sessionEndHooks: system.hooks.sessionEnd && !options.child,
    startsServers: choices.mcp !== undefined,
    // A replay of a job's task records the place its recording has, so the two logs stay byte for byte.
    job: options.job ?? (options.child ? undefined : recordedJobPlace(config.hookReplay ?? [])),
  });
}

function partsOf(system: SystemServices, { agentId, origin, options }: Launch, choices: Choices): BodyParts {
  const { config, tree } = system;
  const { recorded, hooks } = choices;
  const clock = recorded?.clock ?? config.clock;
  return {
    origin,
    provider: choices.provider,
    tools: tree.tools.wrapAll(choices.tools),
    mcp: choices.mcp,
    gate: new AgentPermissionGate(extended(choices.permissions, { cwd: choices.cwd })),
    projectInstructions: recorded ? { recorded: recorded.events } : config.projectInstructions,
    ...(options.child ? {} : { skills: config.skills }),
    ...(options.child || config.agents === undefined
      ? {}
      : { agents: { source: config.agents, context: definitionContext(config, choices.tools) } }),
    environment: recorded && config.environment ? { recorded: recorded.events } : config.environment,
    toolResults: recorded && system.toolResults ? new RecordedResults(recorded.events) : system.toolResults,
    ...(choices.isolation?.live
      ? { worktree: new AgentWorktree(choices.isolation.plan, agentId, origin.kind === 'resume') }
      : {}),
    store: config.store,
    clock,
    registry: system.registry,
    // A replay keeps the recorded workspace as a name (in configuration, prompts and permission checks);
    // no tool runs there (recorded results, or live tools moved to the folder the replay checked).
    checkWorkspace: (folder) =>
      config.hookReplay || config.toolResults ? Promise.resolve() : system.workspaces.check(folder),
    // In the tree before the agent's first turn can run a `task` call (a resumed one does at once).
    members: {
      join: (joined) => tree.add(agentId, new BodyMember(joined, choices, options), rejoinsOf(origin)),
      leave: () => tree.remove(agentId),
    },
    host: {
      clock,
      // Children ask the host their parent asks (their permissions say whether anyone can answer).
      approve: config.approve,
      preStep: config.preStep,
      hooks: {
        consult: hooks.consult,
        transcripts: hooks.transcripts,
        ...(hooks.flags.preTool === true ? { preTool: true } : {}),
        ...(hooks.sessionStart ? { sessionStart: true } : {}),
      },
      // A replay's recorded model answers every request, whichever model a recorded hook chose.
      models: config.hookReplay ? {} : config.models,
      longOutputs: system.savedOutputs.forSession(agentId, config.toolOutput.maxChars),
      compaction: config.compaction,
      releaseChildren: () => system.background.release(agentId),
      // A replay answers each check with the recorded verdict: a replayed subagent from its own log, a
      // subagent without one checks live (the recording of its parent says nothing of its answers).
      outputs: new OutputChecks(options.child ? recorded?.events : config.hookReplay),
      revoke: async () => {
        // Children end with their parent's tool call; one that outlived it still goes before the parent.
        await tree.disposeChildren(agentId);
        system.registry.delete(agentId);
      },
    },
  };
}

/**
 * What the tree reads of a member when a subagent starts: MCP tool lists and the mode change while the
 * agent lives, so they are getters (a spread would read each one once, here), on the class: an object
 * literal with its own getters is a slow dictionary, made in ~3 µs, and V8 keeps it past young collections.
 */
class BodyMember implements TreeMember {
  readonly depth: number;
  readonly provider: Provider;
  readonly parent?: string;
  readonly log: SessionLog;

  constructor(
    private readonly body: AgentBody,
    private readonly choices: Choices,
    options: LaunchOptions,
  ) {
    this.depth = options.child?.depth ?? 0;
    this.provider = body.provider;
    if (options.child) this.parent = options.child.parent;
    this.log = body.requireLog();
  }

  get tools(): readonly AnyTool[] {
    return [...this.choices.tools, ...(this.choices.mcp?.tools() ?? [])];
  }

  get toolNames(): readonly string[] {
    return [...this.body.offer.tools.keys()];
  }

  get agentDefinitions(): readonly AgentDefinition[] {
    return this.body.definitions.entries;
  }

  get models(): Readonly<Record<string, Provider>> {
    return this.body.parts.host.models;
  }

  /** The mode now: a subagent starts no looser than its parent runs at that moment. */
  get permissions(): PermissionSettings {
    const { gate } = this.body;
    return extended(this.choices.permissions, { mode: gate.mode, readOnlyFolders: gate.readOnlyFolders });
  }
}

/** What an agent's definition files are read against: its host's tools, models and own agent types. */
function definitionContext(config: SystemConfig, tools: readonly AnyTool[]): DefinitionContext {
  return {
    knownTools: tools.map((tool) => tool.name),
    models: Object.keys(config.models),
    reserved: agentTypeNamesOf(tools),
  };
}

/** A resumed agent's calls whose subagent was left waiting: running them again continues that child. */
function rejoinsOf(origin: AgentOrigin): readonly { callId: string; sessionId: string }[] {
  return origin.kind === 'resume' && origin.point?.kind === 'waiting' ? origin.point.children : [];
}

/** The MCP servers a top-level agent starts: the system's and its own, or the recorded ones of a replay. */
function mcpServersOf(
  config: SystemConfig,
  own: McpServers | undefined,
  cwd: string,
): McpToolSource | undefined {
  if (config.mcpReplay) return new RecordedMcpServers(config.mcpReplay);
  const servers = { ...config.mcpServers, ...own };
  if (Object.keys(servers).length === 0) return undefined;
  return new McpServerSet(servers, { connect: connectWithSdkLazily, clock: config.clock, cwd });
}

function rootPermissions(config: SystemConfig): PermissionSettings {
  const { permissionMode, permissions, approve } = config;
  return { mode: permissionMode, ...permissions, canAsk: approve !== undefined };
}

/**
 * The environment block is refreshed on a turn's first step: when gathered, or when the recording being
 * replayed had one (a replay always passes its events, with or without blocks).
 */
function environmentEachTurn(config: SystemConfig, recorded: RecordedSubagent | undefined): boolean {
  const { environment } = config;
  if (environment === undefined) return false;
  if ('gather' in environment) return true;
  return (recorded?.events ?? environment.recorded).some((event) => event.type === 'environment');
}

const launchCalls = { new: 'createAgent', resume: 'resumeAgent', fork: 'forkAgent' } as const;
