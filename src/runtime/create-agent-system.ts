import { type AnyActorRef, createActor, type InspectionEvent, type Observer } from 'xstate';
import type { HookDeps } from '../actors/hook.ts';
import type { Clock, IdGenerator } from '../core/clock.ts';
import { parseHostValue } from '../core/host-schema.ts';
import { AgentStateError } from '../errors/agent-state-error.ts';
import { ConfigError } from '../errors/config-error.ts';
import { liveConsult, recordedConsult, recordedPoints } from '../hooks/consult.ts';
import { ProcessSweeps } from '../hooks/hook-process.ts';
import { type HookPoint, wiredHookPoints } from '../hooks/hook-types.ts';
import { hookTable } from '../hooks/in-process-hook.ts';
import type { HookFlags } from '../machines/hook-events.ts';
import { McpServerSet } from '../mcp/mcp-servers.ts';
import { RecordedMcpServers } from '../mcp/recorded-servers.ts';
import { connectWithSdk } from '../mcp/sdk-connection.ts';
import type { McpServers } from '../mcp/server-config.ts';
import type { McpToolSource } from '../mcp/tool-source.ts';
import { AgentPermissionGate, type PermissionSettings } from '../permissions/gate.ts';
import { contextWindowOf } from '../providers/types.ts';
import { RecordedResults } from '../recorded/recorded-results.ts';
import { forkEvents } from '../session/fork.ts';
import type { LogEvent, SessionStore } from '../session/types.ts';
import type { LoadedSettings } from '../settings/settings-types.ts';
import { Agent } from './agent-handle.ts';
import { agentInput } from './agent-input.ts';
import { AgentLogic, type AgentLogicDeps } from './agent-logic.ts';
import { type AgentOrigin, agentPlan } from './agent-plan.ts';
import { type AgentRegistry, AgentResources } from './agent-resources.ts';
import { createAgentSchema, forkAgentSchema, inspectSchema, resumeAgentSchema } from './call-schemas.ts';
import { Creations } from './creations.ts';
import { inspectGuarded } from './guarded-inspect.ts';
import { HookTranscripts } from './hook-transcripts.ts';
import { hostLogic } from './host.ts';
import { type Job, type JobOptions, runJob } from './jobs/run-job.ts';
import { LiveBus } from './live-bus.ts';
import type { AgentSystemOptions, CreateAgentOptions, Limits } from './options.ts';
import { parseSystemOptions, type SystemConfig } from './options-schema.ts';
import { loadSession, takeStoredSession } from './resume/stored-session.ts';
import { SavedOutputFolders } from './saved-outputs.ts';
import { AgentTree, type ChildSpec, type TreeMember } from './subagents.ts';
import { WorkspaceCheck } from './workspace-check.ts';

/** `createAgent` options plus, for a subagent, how its parent launches it. */
type LaunchOptions = CreateAgentOptions & { child?: ChildSpec };

/**
 * Many agents in one XState actor system, sharing a model, tools, a session store, a clock and ids.
 * Every option is parsed here, once: a bad one throws a `ConfigError` that names it
 * (`createAgentSystem: limits.maxSteps must be a positive integer, got NaN`).
 *
 * @example
 * const system = createAgentSystem({ model: scripted([{ text: 'Hi.' }]) });
 * const agent = await system.createAgent();
 * const { reason, text } = await agent.run('Say hi');
 * await system.dispose();
 */
export function createAgentSystem(options: AgentSystemOptions): AgentSystem {
  return new AgentSystem(options);
}

export class AgentSystem {
  readonly store: SessionStore;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly limits: Limits;
  /** The settings files read because the `settings` option asked for them, merged (`undefined` without it). */
  readonly settings: LoadedSettings | undefined;
  // No `inspect` option: XState then builds no inspection events until someone subscribes.
  private readonly host = createActor(hostLogic);
  private readonly registry: AgentRegistry = new Map();
  private readonly agents = new Set<Agent>();
  private readonly creations = new Creations(() => this.disposed);
  private readonly tree: AgentTree;
  private readonly logic: AgentLogic;
  private readonly savedOutputs: SavedOutputFolders;
  private readonly workspaces = new WorkspaceCheck();
  // One index of the recorded results for the system's agents (a replay with recorded tools).
  private readonly toolResults: RecordedResults | undefined;
  private disposed = false;

  private readonly config: SystemConfig;
  /** How hook points are consulted, and which ones have hooks (the charts wait only there). */
  private readonly hooks: HookConsultation;

  constructor(options: AgentSystemOptions) {
    this.config = parseSystemOptions(options);
    const { config } = this;
    this.hooks = hookConsultation(config);
    this.store = config.store;
    this.clock = config.clock;
    this.ids = () => config.nextId('ids');
    this.limits = config.limits;
    this.settings = config.settings;
    this.toolResults = config.toolResults ? new RecordedResults(config.toolResults) : undefined;
    this.logic = new AgentLogic(this.clock);
    this.savedOutputs = new SavedOutputFolders(this.store);
    this.tree = new AgentTree({
      childId: (parentId, callId) =>
        config.subagentReplay?.childSessionId(parentId, callId) ?? config.nextId('task'),
      ...(config.subagentReplay
        ? { recordedAt: config.subagentReplay.recordedAt.bind(config.subagentReplay) }
        : {}),
      limits: this.limits,
      subagents: config.subagents,
      launchChild: (id, childOptions, child) => this.launch(id, { kind: 'new' }, { ...childOptions, child }),
      resumeChild: (id, childOptions, child) => this.resumeSession(id, { ...childOptions, child }),
    });
    this.host.start();
  }

  /**
   * Creates an agent with a new session. Rejects with a `ConfigError` naming a bad option, or with the
   * original error if a setup stage fails (nothing of the agent stays registered or written).
   */
  async createAgent(options: CreateAgentOptions = {}): Promise<Agent> {
    const parsed = parseHostValue('createAgent', createAgentSchema, { options }).options ?? {};
    this.assertOpen();
    return this.launch(parsed.id ?? this.config.nextId('createAgent'), { kind: 'new' }, parsed);
  }

  /**
   * Loads a session and continues it with a live agent. A turn left waiting for the outside world (a call
   * waiting for approval, or a subagent that waits) is continued where it waited: the same questions are
   * asked again. Anything else a crash left open is repaired: calls without a result get `not_started` or
   * `unknown`, and the open turn ends `interrupted`.
   */
  async resumeAgent(sessionId: string, options: Omit<CreateAgentOptions, 'id'> = {}): Promise<Agent> {
    ({ sessionId, options = {} } = parseHostValue('resumeAgent', resumeAgentSchema, { sessionId, options }));
    this.assertOpen();
    return this.resumeSession(sessionId, options);
  }

  /** Starts a new session seeded with a prefix of another, ending at a turn boundary. */
  async forkAgent(sessionId: string, options: CreateAgentOptions & { atSeq?: number } = {}): Promise<Agent> {
    ({ sessionId, options = {} } = parseHostValue('forkAgent', forkAgentSchema, { sessionId, options }));
    this.assertOpen();
    const events = await loadSession(this.store, sessionId, 'fork');
    const newId = options.id ?? this.config.nextId('forkAgent');
    const seed = forkEvents(events, {
      newAgentId: newId,
      sourceSessionId: sessionId,
      clock: this.clock,
      ...(options.atSeq !== undefined ? { atSeq: options.atSeq } : {}),
    });
    return this.launch(newId, { kind: 'fork', seed }, options);
  }

  /**
   * Observes every actor of every agent (XState inspection events). Returns an unsubscribe function.
   * The observer is called inside the actors' work, so it is kept from affecting them: an observer that
   * throws is unsubscribed, and its error is reported as a process warning (it never reaches an actor).
   */
  inspect(observer: Observer<InspectionEvent> | ((event: InspectionEvent) => void)): () => void {
    parseHostValue('inspect', inspectSchema, { observer });
    return inspectGuarded(this.host.system, observer);
  }

  /**
   * Runs one agent per task, at most `concurrency` alive at once. See `runJob` in jobs/run-job.ts.
   *
   * @example
   * const job = system.runJob({ tasks: [{ prompt: 'Fix a.ts' }, { prompt: 'Fix b.ts' }], concurrency: 2 });
   * const results = await job.result; // one JobTaskResult per task, in task order
   */
  runJob(options: JobOptions): Job {
    this.assertOpen();
    return runJob(this, options);
  }

  /** The live agents (subagents included). */
  list(): Agent[] {
    return [...this.agents];
  }

  /** Disposes every agent (each one fully: cancel, quiesce, flush, revoke), then stops the system. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    // Agents still being created roll back (or, if they just became ready, dispose) before the host stops.
    await this.creations.disposeAll();
    // Top-level agents first: each one cancels and disposes its own subagents before it is gone.
    const roots = [...this.agents].filter((agent) => !this.tree.isChild(agent.id));
    await Promise.all(roots.map((agent) => agent.dispose()));
    await Promise.all([...this.agents].map((agent) => agent.dispose()));
    await this.savedOutputs.dispose();
    // What command hooks left running is being stopped; nothing of them outlives the system.
    await this.hooks.settled();
    this.host.stop();
  }

  /** What the agent's actors work with; dispose revokes children first, then the agent itself. */
  private depsFor(
    agentId: string,
    parts: {
      resources: AgentResources;
      gate: AgentPermissionGate;
      bus: LiveBus;
      clock: Clock;
      /** The system's hooks, or a replayed subagent's recorded decisions. */
      hooks: HookConsultation;
    },
  ): AgentLogicDeps {
    const { resources } = parts;
    return {
      resources,
      gate: parts.gate,
      clock: parts.clock,
      publish: parts.bus.publish,
      // Children ask the host their parent asks (their permissions say whether anyone can answer).
      approve: this.config.approve,
      preStep: this.config.preStep,
      hooks: {
        consult: parts.hooks.consult,
        ...(parts.hooks.transcripts ? { transcripts: parts.hooks.transcripts } : {}),
        ...(parts.hooks.flags.preTool === true ? { preTool: true } : {}),
      },
      // A replay's recorded model answers every request, whichever model a recorded hook chose.
      models: this.config.hookReplay ? {} : this.config.models,
      longOutputs: this.savedOutputs.forSession(agentId, this.config.toolOutput.maxChars),
      compaction: this.config.compaction,
      revoke: async () => {
        // Children end with their parent's tool call; one that outlived it still goes before the parent.
        await this.tree.disposeChildren(agentId);
        this.registry.delete(agentId);
        await resources.closeSession();
      },
    };
  }

  /** The public handle of a created agent, known to the system until it is disposed. */
  private register(
    agentId: string,
    parts: {
      ref: AnyActorRef;
      release: () => void;
      resources: AgentResources;
      bus: LiveBus;
      gate: AgentPermissionGate;
      nextId: (call: string) => string;
    },
  ): Agent {
    const log = parts.resources.requireLog();
    log.subscribe((event) => {
      if (parts.bus.hasListeners) parts.bus.publish({ type: 'log', agentId, event });
      // A plan accepted or `setPermissionMode` changes the tools offered: the running turn's next step
      // must run the pre-step work that applies them.
      if (event.type === 'mode.changed') {
        parts.ref.send({ type: 'agent.toolsChanged' });
        this.tree.tightenChildren(agentId, parts.gate.mode);
      }
    });
    const release = () => {
      parts.release();
      this.agents.delete(agent);
      this.tree.remove(agentId);
    };
    const servers = () => parts.resources.plan.mcp?.servers() ?? [];
    const mode = () => parts.gate.mode;
    const ceiling = () => this.tree.modeCeiling(agentId);
    const agent = new Agent(parts.ref, log, parts.bus, parts.nextId, release, servers, mode, ceiling);
    this.agents.add(agent);
    return agent;
  }

  /** Takes a stored session and launches an agent where it continues (see `takeStoredSession`). */
  private async resumeSession(sessionId: string, options: LaunchOptions): Promise<Agent> {
    if (this.registry.has(sessionId))
      throw new ConfigError(`session "${sessionId}" already has a live agent in this system`);
    const origin = await takeStoredSession(this.store, this.clock, sessionId);
    try {
      return await this.launch(sessionId, origin, options);
    } catch (error) {
      // The agent's session stage owns the lock once it ran (its rollback releases it); releasing twice
      // is harmless, and this covers failures before that stage.
      await origin.lock?.release();
      throw error;
    }
  }

  private async launch(agentId: string, origin: AgentOrigin, options: LaunchOptions): Promise<Agent> {
    this.assertOpen();
    const { config } = this;
    // A subagent of a replayed tree re-runs from its own log (see `SubagentRecordings`); its replay clock
    // reads how many events that log holds, once the resources below have opened it.
    const built: { resources?: AgentResources } = {};
    const recorded = options.child
      ? config.subagentReplay?.session(agentId, () => built.resources?.log?.events.length ?? 0)
      : undefined;
    if (recorded) options = { ...options, ...recordedSystemPrompt(recorded.events) };
    const provider = recorded?.model ?? options.model ?? config.model;
    const clock = recorded?.clock ?? this.clock;
    const cwd = config.cwd;
    const permissions = options.child?.permissions ?? this.rootPermissions();
    const limits = options.child?.limits ?? this.limits;
    const tools = options.tools ?? config.tools;
    const bus = new LiveBus();
    const mcp = options.child ? undefined : this.mcpFor(options.mcpServers, cwd);
    const gate = new AgentPermissionGate({ ...permissions, cwd });
    const resources = new AgentResources(
      agentPlan({
        agentId,
        origin,
        provider,
        tools: tools.map((tool) => this.tree.wrap(tool)),
        cwd,
        permissions,
        limits,
        options,
        projectInstructions: recorded ? { recorded: recorded.events } : config.projectInstructions,
        compaction: config.compaction,
        mcp,
        skills: config.skills,
        environment: recorded && config.environment ? { recorded: recorded.events } : config.environment,
        toolResults: recorded && this.toolResults ? new RecordedResults(recorded.events) : this.toolResults,
      }),
      {
        store: this.store,
        clock,
        registry: this.registry,
        gate,
        // A replay keeps the recorded workspace as a name (in configuration, prompts and permission checks);
        // no tool runs there (recorded results, or live tools moved to the folder the replay checked).
        checkWorkspace: (folder) =>
          config.hookReplay || config.toolResults ? Promise.resolve() : this.workspaces.check(folder),
        // In the tree before the agent's first turn can run a `task` call (a resumed one does at once).
        members: {
          join: () => {
            // Read when a subagent starts: MCP tool lists and the mode change while the agent lives (so
            // the member is handed over as it is: a spread would read each getter once, here).
            const member: TreeMember = {
              depth: options.child?.depth ?? 0,
              get tools() {
                return [...tools, ...(mcp?.tools() ?? [])];
              },
              get toolNames() {
                return [...resources.tools.keys()];
              },
              provider,
              // The mode now: a subagent starts no looser than its parent runs at that moment.
              get permissions() {
                return { ...permissions, mode: gate.mode, readOnlyFolders: gate.readOnlyFolders };
              },
              ...(options.child ? { parent: options.child.parent } : {}),
              log: resources.requireLog(),
            };
            const rejoins =
              origin.kind === 'resume' && origin.point?.kind === 'waiting' ? origin.point.children : [];
            this.tree.add(agentId, member, rejoins);
          },
          leave: () => this.tree.remove(agentId),
        },
      },
    );
    // Named by the public call that needed the id (a subagent's launch is the `task` tool's).
    const call = options.child ? 'task' : launchCalls[origin.kind];
    const hostKey = `${agentId}#${config.nextId(call)}`;
    built.resources = resources;
    const hooks = recorded ? recordedHooks(recorded.events) : this.hooks;
    const deps = this.depsFor(agentId, { resources, gate, bus, clock, hooks });
    const systemId = `agent:${hostKey}`;
    const input = agentInput({
      agentId,
      agentKey: systemId,
      origin,
      model: provider.model,
      limits,
      // Before every step only when a hook or MCP tool lists ask for it; otherwise the turn runs the
      // pre-step work on its first step and after a `mode.changed` (see `register`), which saves a
      // spawned actor and two events per step.
      preStepEveryStep: config.preStep !== undefined || mcp !== undefined || hooks.flags.preStep === true,
      // The environment block is refreshed on a turn's first step: when gathered, or when the recording
      // being replayed had one (a replay always passes its events, with or without blocks).
      preStepAtTurnStart:
        config.environment !== undefined &&
        ('gather' in config.environment ||
          (recorded?.events ?? config.environment.recorded).some((event) => event.type === 'environment')),
      hooks: hooks.flags,
      sessionEndHooks: this.hooks.sessionEnd && !options.child,
      retry: { ...config.retry, maxAttempts: limits.maxAttempts },
      compaction: { enabled: config.compaction.enabled, threshold: config.compaction.threshold },
      contextWindow: contextWindowOf(provider),
    });
    const unregister = this.logic.register(systemId, deps);
    this.host.send({ type: 'host.spawn', systemId, logic: this.logic.machine, input });
    const ref = this.host.system.get(systemId) as AnyActorRef;
    const release = () => {
      this.host.send({ type: 'host.release', ref });
      unregister();
    };
    await this.creations.wait({ agentId, ref, release });
    const nextId = recorded?.nextId ?? config.nextId;
    return this.register(agentId, { ref, release, resources, bus, gate, nextId });
  }

  /** The MCP servers a top-level agent starts: the system's and its own, or the recorded ones of a replay. */
  private mcpFor(own: McpServers | undefined, cwd: string): McpToolSource | undefined {
    if (this.config.mcpReplay) return new RecordedMcpServers(this.config.mcpReplay);
    const servers = { ...this.config.mcpServers, ...own };
    if (Object.keys(servers).length === 0) return undefined;
    return new McpServerSet(servers, { connect: connectWithSdk, clock: this.clock, cwd });
  }

  private rootPermissions(): PermissionSettings {
    const { permissionMode, permissions, approve } = this.config;
    return { mode: permissionMode, ...permissions, canAsk: approve !== undefined };
  }

  private assertOpen(): void {
    if (this.disposed) throw new AgentStateError('the agent system has been disposed');
  }
}

/**
 * Live, the hooks the host configured run; in a replay (`hookReplay`) every point answers with the
 * recorded decisions, and the charts wait at the points the recording consulted.
 */
type HookConsultation = {
  consult: HookDeps['consult'];
  /** The chart points that wait for hooks. */
  flags: HookFlags;
  /** Dispose waits for `sessionEnd` hooks (a top-level agent's; subagents are not told). */
  sessionEnd: boolean;
  /** Resolves once every process a command hook left running has been stopped. */
  settled: () => Promise<void>;
  /** Where command hooks find the session's transcript (live only); removed once hooks have settled. */
  transcripts?: HookTranscripts;
};

function hookConsultation(config: SystemConfig): HookConsultation {
  if (config.hookReplay) return recordedHooks(config.hookReplay);
  const sweeps = new ProcessSweeps();
  const table = hookTable(config.hooks, config.cwd, sweeps);
  const has = (point: HookPoint) => (table[point]?.length ?? 0) > 0;
  const transcripts = new HookTranscripts();
  return {
    consult: liveConsult(table),
    flags: hookFlagsOf(has),
    sessionEnd: has('sessionEnd'),
    settled: () => sweeps.settled().then(() => transcripts.dispose()),
    transcripts,
  };
}

/** Every hook point answers with the decisions `events` logged; the charts wait where it consulted. */
function recordedHooks(events: readonly LogEvent[]): HookConsultation {
  const points = recordedPoints(events);
  const has = (point: HookPoint) => points.has(point);
  return {
    consult: recordedConsult(events),
    flags: hookFlagsOf(has),
    sessionEnd: has('sessionEnd'),
    settled: () => Promise.resolve(),
  };
}

/** A replayed subagent's recorded system prompt, which holds what its recording read (instruction files). */
function recordedSystemPrompt(events: readonly LogEvent[]): { instructions?: string } {
  const system = (events[0]?.data as { config?: { system?: unknown } } | undefined)?.config?.system;
  return typeof system === 'string' ? { instructions: system } : {};
}

function hookFlagsOf(has: (point: HookPoint) => boolean): HookFlags {
  const flags: HookFlags = {};
  for (const point of wiredHookPoints) {
    // The session points are consulted at every setup and dispose (with no hooks: no decisions).
    if (point === 'subagentStop' || point === 'sessionStart' || point === 'sessionEnd') continue;
    if (has(point)) flags[point] = true;
  }
  // One chart state serves both: a subagent's turn asks the `subagentStop` hooks where others ask `stop`.
  if (has('subagentStop')) flags.stop = true;
  return flags;
}

const launchCalls = { new: 'createAgent', resume: 'resumeAgent', fork: 'forkAgent' } as const;
