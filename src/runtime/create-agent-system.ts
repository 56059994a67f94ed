import { type AnyActorRef, createActor, type InspectionEvent, type Observer } from 'xstate';
import type { Clock, IdGenerator } from '../core/clock.ts';
import { parseHostValue } from '../core/host-schema.ts';
import { AgentStateError } from '../errors/agent-state-error.ts';
import { ConfigError } from '../errors/config-error.ts';
import { forkEvents } from '../session/fork.ts';
import type { SessionStore } from '../session/types.ts';
import type { LoadedSettings } from '../settings/settings-types.ts';
import { SystemTracing } from '../telemetry/system-tracing.ts';
import { assembleAgent, type Launch, type LaunchOptions, type SystemServices } from './agent-assembly.ts';
import type { AgentBody } from './agent-body.ts';
import { Agent } from './agent-handle.ts';
import { AgentLogic } from './agent-logic.ts';
import { checkApprover, checkOwnTools } from './approver-check.ts';
import { createAgentSchema, forkAgentSchema, inspectSchema, resumeAgentSchema } from './call-schemas.ts';
import { Creations } from './creations.ts';
import { inspectGuarded } from './guarded-inspect.ts';
import { hostLogic } from './host.ts';
import { JobStandings, type JobWatch } from './jobs/job-standings.ts';
import type { Job, JobOptions, JobPlace } from './jobs/run-job.ts';
import type { TaskSupervisionHost } from './jobs/supervised-task.ts';
import { tracedJob } from './jobs/traced-job.ts';
import type {
  AgentSystemOptions,
  CreateAgentOptions,
  ForkAgentOptions,
  Limits,
  ResumeAgentOptions,
} from './options.ts';
import { parseSystemOptions } from './options-schema.ts';
import { loadSession, takeStoredSession } from './resume/stored-session.ts';
import { systemServices } from './system-services.ts';
import { placeOf, refuseIsolatedFork } from './worktrees/launch-isolation.ts';

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
  private readonly agents = new Set<Agent>();
  private readonly creations = new Creations(() => this.disposed);
  private readonly logic: AgentLogic;
  /** What every agent of this system shares: options, hooks, the tree, the registry, saved outputs. */
  private readonly services: SystemServices;
  /** OpenTelemetry spans of the agents, when a tracer provider is set (docs/telemetry.md). */
  private readonly tracing: SystemTracing;
  private disposed = false;
  private jobsStarted = 0;
  private readonly standings = new JobStandings();
  /** The jobs `runJob` started and where each stands (tasks finished, failed, running), as they change. */
  readonly jobs: JobWatch = this.standings;

  constructor(options: AgentSystemOptions) {
    const config = parseSystemOptions(options);
    this.store = config.store;
    this.clock = config.clock;
    this.ids = () => config.nextId('ids');
    this.limits = config.limits;
    this.settings = config.settings;
    this.tracing = new SystemTracing(config.telemetry);
    this.logic = new AgentLogic(this.clock);
    this.services = systemServices(config, {
      launch: (launch) => this.launch(launch),
      resumeSession: (sessionId, launchOptions) => this.resumeSession(sessionId, launchOptions),
    });
    this.checkApprover('createAgentSystem', {});
    this.host.start();
  }

  /**
   * Creates an agent with a new session. Rejects with a `ConfigError` naming a bad option, or with the
   * original error if a setup stage fails (nothing of the agent stays registered or written).
   */
  async createAgent(options: CreateAgentOptions = {}): Promise<Agent> {
    return this.createNew(options);
  }

  /**
   * Loads a session and continues it with a live agent. A turn left waiting for the outside world (a call
   * waiting for approval, or a subagent that waits) is continued where it waited: the same questions are
   * asked again. Anything else a crash left open is repaired: calls without a result get `not_started` or
   * `unknown`, and the open turn ends `interrupted`.
   */
  async resumeAgent(sessionId: string, options: ResumeAgentOptions = {}): Promise<Agent> {
    ({ sessionId, options = {} } = parseHostValue('resumeAgent', resumeAgentSchema, { sessionId, options }));
    this.assertOpen();
    this.checkApprover('resumeAgent', options);
    return this.resumeSession(sessionId, options);
  }

  /** Starts a new session seeded with a prefix of another, ending at a turn boundary. */
  async forkAgent(sessionId: string, options: ForkAgentOptions = {}): Promise<Agent> {
    ({ sessionId, options = {} } = parseHostValue('forkAgent', forkAgentSchema, { sessionId, options }));
    this.assertOpen();
    this.checkApprover('forkAgent', options);
    const events = refuseIsolatedFork(sessionId, await loadSession(this.store, sessionId, 'fork'));
    const newId = options.id ?? this.services.config.nextId('forkAgent');
    const seed = forkEvents(events, {
      newAgentId: newId,
      sourceSessionId: sessionId,
      clock: this.clock,
      ...(options.atSeq !== undefined ? { atSeq: options.atSeq } : {}),
    });
    return this.launch({ agentId: newId, origin: { kind: 'fork', seed }, options });
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
    const jobId = `job-${++this.jobsStarted}`;
    const createAgent = (created: CreateAgentOptions, job?: JobPlace) => this.createNew(created, job);
    const { tracing, standings } = this;
    return tracedJob({ jobId, tracing, standings, createAgent, supervision: this.taskSupervision }, options);
  }

  /** What supervising a task of this system needs: `runJob`'s, and a queue worker's (`startWorker`). */
  get taskSupervision(): TaskSupervisionHost {
    const logOf = (agentId: string) => this.services.background.directory.member(agentId)?.log;
    return { clock: this.clock, resumeAgent: this.resumeSession.bind(this), logOf };
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
    const roots = [...this.agents].filter((agent) => !this.services.tree.isChild(agent.id));
    await Promise.all(roots.map((agent) => agent.dispose()));
    await Promise.all([...this.agents].map((agent) => agent.dispose()));
    await this.services.savedOutputs.dispose();
    // What command hooks left running is being stopped; nothing of them outlives the system.
    await this.services.hooks.settled();
    this.host.stop();
  }

  /** `createAgent`, for a job's task (`job`: its place, recorded in its `session.start`) or the host. */
  private async createNew(options: CreateAgentOptions, job?: JobPlace): Promise<Agent> {
    const parsed = parseHostValue('createAgent', createAgentSchema, { options }).options ?? {};
    this.assertOpen();
    this.checkApprover('createAgent', parsed);
    const agentId = parsed.id ?? this.services.config.nextId('createAgent');
    const launched = job ? { ...parsed, job } : parsed;
    return this.launch({ agentId, origin: { kind: 'new' }, options: launched });
  }

  /** Takes a stored session and launches an agent where it continues (see `takeStoredSession`). */
  private async resumeSession(sessionId: string, options: LaunchOptions): Promise<Agent> {
    if (this.services.registry.has(sessionId))
      throw new ConfigError(`session "${sessionId}" already has a live agent in this system`);
    const origin = await takeStoredSession(this.store, this.clock, sessionId);
    let agent: Agent;
    try {
      agent = await this.launch({ agentId: sessionId, origin, options });
    } catch (error) {
      // The agent's session stage owns the lock once it ran (its rollback releases it); releasing twice
      // is harmless, and this covers failures before that stage.
      await origin.lock?.release();
      throw error;
    }
    // Its background children come back from their own logs, and mail left in flight is delivered.
    await this.services.background.restore(sessionId);
    return agent;
  }

  /** Spec → body → handle: the agent's actor is spawned with its ports registered under its key. */
  private async launch(launch: Launch): Promise<Agent> {
    this.assertOpen();
    const call = launch.origin.kind === 'new' ? 'createAgent' : `${launch.origin.kind}Agent`;
    const loading = this.tracing.ready(call); // no await once loaded or off: see SystemTracing.ready
    if (loading) await loading.then(() => this.assertOpen(launch.agentId));
    const placed = placeOf(this.services, launch);
    const place = placed instanceof Promise ? await placed : placed;
    const { body, nextId } = assembleAgent(this.services, launch, place);
    const { key, input } = body.spec;
    const unregister = this.logic.register(key, body.ports);
    this.host.send({ type: 'host.spawn', systemId: key, logic: this.logic.machine, input });
    const ref = this.host.system.get(key) as AnyActorRef;
    const release = () => {
      this.host.send({ type: 'host.release', ref });
      unregister();
    };
    await this.creations.wait({ agentId: launch.agentId, ref, release, signal: launch.signal });
    return this.handleOf(body, { ref, release, nextId }, launch.options.traceParent);
  }

  /** The public handle of a created agent, known to the system until it is disposed. */
  private handleOf(
    body: AgentBody,
    parts: { ref: AnyActorRef; release: () => void; nextId: (call: string) => string },
    traceParent: string | undefined,
  ): Agent {
    const { agentId, bus, gate } = body;
    const { tree, background } = this.services;
    const log = body.requireLog();
    const { parent } = body;
    const untrace = this.tracing.attach({
      agentId,
      parent,
      traceParent,
      events: log.events,
      subscribe: (listener) => bus.subscribe(listener),
    });
    background.directory.join({ agentId, ref: parts.ref, log, parent: body.parent, publish: bus.publish });
    log.subscribe((event) => {
      if (bus.hasListeners) bus.publish({ type: 'log', agentId, event });
      // A plan accepted or `setPermissionMode` changes the tools offered: the running turn's next step
      // must run the pre-step work that applies them.
      if (event.type === 'mode.changed') {
        parts.ref.send({ type: 'agent.toolsChanged' });
        tree.tightenChildren(agentId, gate.mode);
      }
    });
    const agent = new Agent({
      ref: parts.ref,
      nextId: parts.nextId,
      log,
      bus,
      release: () => {
        untrace();
        parts.release();
        this.agents.delete(agent);
        tree.remove(agentId);
        background.directory.leave(agentId);
      },
      children: () => background.childrenOf(agentId),
      servers: () => body.parts.mcp?.servers() ?? [],
      outputs: body.parts.host.outputs,
      worktree: () => body.parts.worktree?.state,
      mode: () => gate.mode,
      modeCeiling: () => tree.modeCeiling(agentId),
      checkMode: (mode) =>
        checkApprover({
          call: 'agent.setPermissionMode',
          tools: body.parts.tools,
          mcpServers: (body.parts.mcp?.servers() ?? []).map((status) => status.server),
          config: this.services.config,
          mode,
          preToolHooks: this.services.hooks.flags.preTool === true,
        }),
    });
    this.agents.add(agent);
    return agent;
  }

  private checkApprover(call: string, own: Pick<CreateAgentOptions, 'tools' | 'mcpServers'>): void {
    const { config, hooks } = this.services;
    checkOwnTools({ config, preToolHooks: hooks.flags.preTool === true }, call, own);
  }

  /** Throws once the system is disposed; for an agent being created (`creating`), as its rollback says. */
  private assertOpen(creating?: string): void {
    if (!this.disposed) return;
    const why = creating ? `agent ${creating} was not created: the system was disposed` : undefined;
    throw new AgentStateError(why ?? 'the agent system has been disposed');
  }
}
