import type { Clock } from '../core/clock.ts';
import { extended } from '../core/extended.ts';
import { AgentStateError } from '../errors/agent-state-error.ts';
import { ConfigError } from '../errors/config-error.ts';
import type { SetupStage } from '../machines/agent.ts';
import type { ToolsUpdate } from '../machines/turn-types.ts';
import type { McpToolSource } from '../mcp/tool-source.ts';
import type { AgentPermissionGate } from '../permissions/gate.ts';
import type { Provider } from '../providers/types.ts';
import type { RecordedResults } from '../recorded/recorded-results.ts';
import { recordedSystemPrompt } from '../session/recorded-system.ts';
import { SessionLog } from '../session/session-log.ts';
import type { SessionLock, SessionStore } from '../session/types.ts';
import type { AnyTool } from '../tools/define-tool.ts';
import type { SkillFolders } from '../tools/skill-files.ts';
import { AgentDefinitionCatalogue, type DefinitionSetting } from './agent-definition-catalogue.ts';
import { AgentEnvironment } from './agent-environment.ts';
import { AgentOffer } from './agent-offer.ts';
import { type AgentPorts, agentPorts, type HostServices, type PortSource } from './agent-ports.ts';
import { AgentSkills } from './agent-skills.ts';
import type { AgentOrigin, AgentSpec } from './agent-spec.ts';
import { LiveBus } from './live-bus.ts';
import type { SystemConfig } from './options-schema.ts';
import { type InstructionSetting, instructionsFor } from './project-instructions.ts';
import { logResumedSegment } from './resume/resumed-segment.ts';
import type { AgentWorktree } from './worktrees/agent-worktree.ts';

/** The live agents of one system, by id: a session has at most one live owner. */
export type AgentRegistry = Map<string, unknown>;

/** What a setup stage reports to the agent chart (the tools stage: what the first step offers). */
export type StageReport = { toolNames?: string[]; systemHash?: string };

/** What an agent body is built from, besides its spec: its parts, and the system's shared services. */
export type BodyParts = {
  origin: AgentOrigin;
  provider: Provider;
  /** Its own tools as the runtime runs them (a tool that starts subagents is bound to the system's tree). */
  tools: readonly AnyTool[];
  /** The MCP servers this agent starts and owns (a subagent uses its parent's through its tools). */
  mcp?: McpToolSource | undefined;
  gate: AgentPermissionGate;
  projectInstructions: InstructionSetting;
  /** Where its skills come from (none for a subagent). */
  skills?: SystemConfig['skills'];
  /** Where its agent definitions come from, and what their files are read against (none for a subagent). */
  agents?: DefinitionSetting;
  /** Where its environment block comes from (none: no block). */
  environment?: SystemConfig['environment'];
  /** Answers every call with the recorded result instead of running the tool (a replay). */
  toolResults?: RecordedResults | undefined;
  store: SessionStore;
  clock: Clock;
  registry: AgentRegistry;
  /** An isolated agent's worktree (its workspace): made by the `worktree` stage, finished at dispose. */
  worktree?: AgentWorktree | undefined;
  /** Rejects with a `ConfigError` when the workspace is not a folder (the system checks each once). */
  checkWorkspace: (cwd: string) => Promise<void>;
  /** Joins (and leaves) the system's tree of agents when the agent is published (and unpublished). */
  members?: { join: (body: AgentBody) => void; leave: () => void };
  /** What the system lends the agent's actors (host callbacks, hooks, models, saved outputs, revoke). */
  host: HostServices;
};

/**
 * Everything one agent owns — its session (lock and log), MCP servers, tools, skills, environment block
 * and live event bus — built by the setup stages in order and torn down by their undos in reverse, and
 * the ports its actors reach it through. Each stage records exactly what it did so its undo removes
 * exactly that.
 */
export class AgentBody implements PortSource {
  readonly bus = new LiveBus();
  readonly publish = this.bus.publish;
  readonly skills = new AgentSkills();
  readonly skillFolders: SkillFolders = this.skills.folders;
  readonly definitions = new AgentDefinitionCatalogue();
  readonly agentId: string;
  readonly cwd: string;
  readonly parent: string | undefined;
  readonly provider: Provider;
  readonly gate: AgentPermissionGate;
  readonly originKind: AgentOrigin['kind'];
  readonly startsServers: boolean;
  readonly environment: AgentEnvironment;
  readonly offer: AgentOffer;
  /** What the agent's actors work with, registered under `spec.key` (agent-logic.ts). */
  readonly ports: AgentPorts;
  log: SessionLog | undefined;
  private lock: SessionLock | undefined;
  private createdSession = false;
  private published = false;

  /** The setup stages, in the chart's order: each one's work, and the undo that removes exactly that. */
  private readonly stages: {
    [S in SetupStage]: { run: (signal?: AbortSignal) => Promise<StageReport>; undo: () => Promise<void> };
  } = {
    session: { run: () => this.openSession(), undo: () => this.giveUpSession() },
    worktree: { run: () => this.parts.worktree!.open(), undo: async () => this.parts.worktree?.undo() },
    servers: { run: (signal) => this.startServers(signal), undo: () => this.closeServers() },
    tools: { run: () => this.present(), undo: async () => this.offer.withdraw() },
    publish: { run: async () => this.join(), undo: async () => this.leave() },
  };

  constructor(
    readonly spec: AgentSpec,
    readonly parts: BodyParts,
  ) {
    ({ agentId: this.agentId, cwd: this.cwd, parent: this.parent } = spec);
    ({ provider: this.provider, gate: this.gate } = parts);
    this.originKind = parts.origin.kind;
    this.startsServers = parts.mcp !== undefined;
    this.environment = new AgentEnvironment(parts.environment, {
      cwd: spec.cwd,
      model: parts.provider.model,
      clock: parts.clock,
    });
    this.offer = new AgentOffer({
      // The very array the system gave while there are no skills: agents given it share one offer.
      own: () => (this.skills.tools.length === 0 ? parts.tools : [...parts.tools, ...this.skills.tools]),
      mcp: parts.mcp,
      toolResults: parts.toolResults,
      gate: parts.gate,
      isChild: spec.parent !== undefined,
      log: () => this.requireLog(),
    });
    this.ports = agentPorts(this, parts.host);
  }

  requireLog(): SessionLog {
    if (!this.log) throw new Error(`agent ${this.spec.agentId} has no open session`);
    return this.log;
  }

  /** `signal` aborts on a dispose during creation: the MCP servers stop starting (the stage then fails). */
  runStage(stage: SetupStage, signal?: AbortSignal): Promise<StageReport> {
    return this.stages[stage].run(signal);
  }

  undoStage(stage: SetupStage): Promise<void> {
    return this.stages[stage].undo();
  }

  /**
   * The work before step `step` of `turn`: on a turn's first step the environment block is refreshed
   * (logged when it changed), then the tools are synced. Says what the step offers when the system prompt
   * or the tools changed. Contract: does not throw.
   */
  async prepareStep(turn: number, step: number, signal?: AbortSignal): Promise<ToolsUpdate | undefined> {
    let systemChanged = false;
    if (step === 1) {
      try {
        systemChanged = await this.environment.refresh(turn, this.requireLog(), signal);
      } catch {
        // Failure-tolerant by contract: the model keeps the last block it was given.
      }
      if (systemChanged) this.offer.composeSystem(this.environment.systemText);
    }
    // A turn starts from the names and hash its agent had at setup: its first step always gets the
    // current ones, so a change made in an earlier turn (a plan accepted, the environment) is recorded.
    return this.offer.sync(step === 1, systemChanged);
  }

  /** Closes the log (flushed) and gives the session up for another owner; the last step of dispose. */
  async closeSession(): Promise<void> {
    try {
      await this.requireLog().close();
    } finally {
      await this.releaseLock();
    }
  }

  /** Closes the MCP servers this agent started; the processes have exited when it resolves. */
  async closeServers(): Promise<void> {
    await this.parts.mcp?.close();
  }

  /** Takes the session (its lock, then its log). A stage that fails gives back what it took itself. */
  private async openSession(): Promise<StageReport> {
    const { agentId } = this.spec;
    const { origin, registry, gate } = this.parts;
    if (registry.has(agentId)) throw liveInThisSystem(agentId);
    this.lock = origin.kind === 'resume' ? origin.lock : await this.parts.store.lock?.(agentId);
    try {
      this.log = await this.openLog();
    } catch (error) {
      await this.releaseLock();
      throw error;
    }
    for (const event of this.log.events) gate.observe(event);
    this.log.subscribe((event) => gate.observe(event));
    return {};
  }

  private async openLog(): Promise<SessionLog> {
    const { agentId } = this.spec;
    const { origin, store, clock } = this.parts;
    if (origin.kind === 'resume')
      // `session.resumed` and the repair events follow once the tools are known (`present`).
      return new SessionLog({ sessionId: agentId, store, clock, existing: origin.events });
    await store.create(agentId);
    this.createdSession = true;
    const log = new SessionLog({ sessionId: agentId, store, clock });
    if (origin.kind === 'fork') log.appendBuilt(origin.seed);
    return log;
  }

  private async giveUpSession(): Promise<void> {
    if (this.createdSession) await this.parts.store.remove(this.spec.agentId);
    this.createdSession = false;
    this.log = undefined;
    await this.releaseLock();
  }

  private async releaseLock(): Promise<void> {
    const lock = this.lock;
    this.lock = undefined;
    await lock?.release();
  }

  private async startServers(signal?: AbortSignal): Promise<StageReport> {
    try {
      await this.parts.mcp?.connect(this.requireLog(), signal);
    } catch (error) {
      if (!signal?.aborted) throw error;
      const why = 'it was disposed while its MCP servers were starting';
      throw new AgentStateError(`agent ${this.spec.agentId} was not created: ${why}`, { cause: error });
    }
    return {};
  }

  /**
   * Offers the tools and composes the system prompt (skills, project instructions, then the environment
   * block), and records how the session runs: `session.start` for a new one, `session.resumed` for a
   * resumed one (a fork's seed already holds its start).
   */
  private async present(): Promise<StageReport> {
    const { spec, parts, offer } = this;
    const log = this.requireLog();
    await parts.checkWorkspace(spec.cwd);
    await this.skills.load(parts.skills, log.events, spec.cwd);
    parts.gate.protectFolders(this.skills.readOnlyFolders());
    await this.definitions.load(parts.agents, log.events, parts.tools);
    offer.offer();
    // A resumed or forked conversation keeps the system prompt it was started with.
    let system = recordedSystemPrompt(log.events);
    let ownConfig: Record<string, unknown> = {};
    if (system === undefined) {
      const project = await instructionsFor(parts.projectInstructions, spec.cwd);
      ownConfig = Object.assign({}, this.definitions.startConfig(), project.startConfig);
      system = [spec.instructions, project.text, this.skills.promptText, this.definitions.promptText]
        .filter((part) => part !== '')
        .join('\n\n');
    }
    // Object.assign rather than `{ ...a, b }` (same keys, same order): V8's slow path for fields added
    // after a spread gives each object a map of its own (see core/extended.ts).
    if (parts.origin.kind === 'new') {
      const config = Object.assign({}, spec.startConfig, this.skills.startConfig(), ownConfig, { system });
      const start = { agentId: spec.agentId, ...(spec.parent ? { parent: spec.parent } : {}) };
      log.append({
        type: 'session.start',
        data: extended(start, { config: extended(config, offer.startConfig()) }),
      });
      await log.flush();
    } else if (parts.origin.kind === 'resume') {
      // They wait in memory for the first flush, so a rollback has nothing to remove.
      logResumedSegment(log, extended(spec.startConfig, offer.startConfig()), parts.origin.repaired);
    }
    // The last environment block the log holds (an older session carries it after the prompt).
    this.environment.restore(log.events);
    offer.setSystem(system, this.environment.systemText);
    return { toolNames: [...offer.tools.keys()], systemHash: offer.systemHash };
  }

  /** Makes the agent known to the system (its registry, and its tree of agents). */
  private join(): StageReport {
    const { registry, members } = this.parts;
    if (registry.has(this.spec.agentId)) throw liveInThisSystem(this.spec.agentId);
    registry.set(this.spec.agentId, this);
    members?.join(this);
    this.published = true;
    return {};
  }

  private leave(): void {
    if (this.published) {
      this.parts.registry.delete(this.spec.agentId);
      this.parts.members?.leave();
    }
    this.published = false;
  }
}

function liveInThisSystem(agentId: string): ConfigError {
  return new ConfigError(`agent "${agentId}" is already live in this system (one live owner per session)`);
}
