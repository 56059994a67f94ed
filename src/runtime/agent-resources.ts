import type { Clock } from '../core/clock.ts';
import { fnv1a } from '../core/hash.ts';
import { AgentStateError } from '../errors/agent-state-error.ts';
import { ConfigError } from '../errors/config-error.ts';
import { messageOf } from '../errors/describe-value.ts';
import type { SetupStage } from '../machines/agent.ts';
import type { ToolsUpdate } from '../machines/turn-types.ts';
import type { AgentPermissionGate } from '../permissions/gate.ts';
import { type PermissionMode, toolsOfferedInMode } from '../permissions/modes.ts';
import { planAcceptanceTool } from '../permissions/plan-mode.ts';
import type { ToolSpec } from '../providers/types.ts';
import { SessionLog } from '../session/session-log.ts';
import type { LogEvent, SessionLock, SessionStore } from '../session/types.ts';
import { type AnyTool, toolSpec } from '../tools/define-tool.ts';
import { AgentEnvironment } from './agent-environment.ts';
import type { AgentPlan } from './agent-plan.ts';
import { AgentSkills } from './agent-skills.ts';
import { instructionsFor } from './project-instructions.ts';
import { logResumedSegment } from './resume/resumed-segment.ts';

/** The live agents of one system, by id: a session has at most one live owner. */
export type AgentRegistry = Map<string, unknown>;

/**
 * Everything one agent owns, built by the setup stages in order and torn down by their undos in
 * reverse. Each stage records exactly what it did so its undo removes exactly that.
 */
export class AgentResources {
  log: SessionLog | undefined;
  readonly tools = new Map<string, AnyTool>();
  system = '';
  specs: ToolSpec[] = [];
  systemHash = '';
  readonly skills = new AgentSkills();
  readonly environment: AgentEnvironment;
  // The system prompt without the environment block (what session.start records).
  private baseSystem = '';
  private createdSession = false;
  private lock: SessionLock | undefined;
  private published = false;

  constructor(
    readonly plan: AgentPlan,
    private readonly env: {
      store: SessionStore;
      clock: Clock;
      registry: AgentRegistry;
      gate: AgentPermissionGate;
      /** Rejects with a `ConfigError` when the workspace is not a folder (the system checks each once). */
      checkWorkspace: (cwd: string) => Promise<void>;
      /** Joins (and leaves) the system's tree of agents when the agent is published (and unpublished). */
      members?: { join: () => void; leave: () => void };
    },
  ) {
    this.environment = new AgentEnvironment(plan.environment, {
      cwd: plan.cwd,
      model: plan.provider.model,
      clock: env.clock,
    });
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
      if (systemChanged) this.system = this.composeSystem();
    }
    // A turn starts from the names and hash its agent had at setup: its first step always gets the
    // current ones, so a change made in an earlier turn (a plan accepted, the environment) is recorded.
    return this.syncTools(step === 1, systemChanged);
  }

  private composeSystem(): string {
    return this.environment.text === '' ? this.baseSystem : `${this.baseSystem}\n\n${this.environment.text}`;
  }

  private offeredMode: PermissionMode | undefined;

  /**
   * Built once per agent, when it is first in plan mode (accepting its plan switches this agent's mode):
   * building a tool describes its input as JSON Schema, ~7 % of a `createAgent` + `dispose`.
   */
  private exitPlanModeTool: AnyTool | undefined;

  private exitPlanMode(): AnyTool {
    this.exitPlanModeTool ??= planAcceptanceTool(this.env.gate, () => this.requireLog());
    return this.exitPlanModeTool;
  }

  private projectOptionsMemo: { system: string; tools: ToolSpec[] } | undefined;

  /** The same object while system prompt and tools stay the same, so projection can reuse its work. */
  projectOptions(): { system: string; tools: ToolSpec[] } {
    if (this.projectOptionsMemo?.system !== this.system || this.projectOptionsMemo.tools !== this.specs) {
      this.projectOptionsMemo = { system: this.system, tools: this.specs };
    }
    return this.projectOptionsMemo;
  }

  /** Closes the log (flushed) and gives the session up for another owner; the last step of dispose. */
  async closeSession(): Promise<void> {
    try {
      await this.requireLog().close();
    } finally {
      await this.releaseLock();
    }
  }

  private async releaseLock(): Promise<void> {
    const lock = this.lock;
    this.lock = undefined;
    await lock?.release();
  }

  requireLog(): SessionLog {
    if (!this.log) throw new Error(`agent ${this.plan.agentId} has no open session`);
    return this.log;
  }

  /** `signal` aborts on a dispose during creation: the MCP servers stop starting (the stage then fails). */
  async runStage(
    stage: SetupStage,
    signal?: AbortSignal,
  ): Promise<{ toolNames?: string[]; systemHash?: string }> {
    switch (stage) {
      case 'session':
        await this.openSession();
        return {};
      case 'servers':
        try {
          await this.plan.mcp?.connect(this.requireLog(), signal);
        } catch (error) {
          if (!signal?.aborted) throw error;
          const why = 'it was disposed while its MCP servers were starting';
          throw new AgentStateError(`agent ${this.plan.agentId} was not created: ${why}`, { cause: error });
        }
        return {};
      case 'tools':
        await this.registerTools();
        return { toolNames: [...this.tools.keys()], systemHash: this.systemHash };
      case 'publish':
        if (this.env.registry.has(this.plan.agentId)) throw liveInThisSystem(this.plan.agentId);
        this.env.registry.set(this.plan.agentId, this);
        this.env.members?.join();
        this.published = true;
        return {};
    }
  }

  async undoStage(stage: SetupStage): Promise<void> {
    switch (stage) {
      case 'session':
        if (this.createdSession) await this.env.store.remove(this.plan.agentId);
        this.createdSession = false;
        this.log = undefined;
        await this.releaseLock();
        return;
      case 'servers':
        await this.plan.mcp?.close();
        return;
      case 'tools':
        this.tools.clear();
        this.specs = [];
        return;
      case 'publish':
        if (this.published) {
          this.env.registry.delete(this.plan.agentId);
          this.env.members?.leave();
        }
        this.published = false;
        return;
    }
  }

  /** Takes the session (its lock, then its log). A stage that fails gives back what it took itself. */
  private async openSession(): Promise<void> {
    const { agentId } = this.plan;
    if (this.env.registry.has(agentId)) throw liveInThisSystem(agentId);
    const { origin } = this.plan;
    this.lock = origin.kind === 'resume' ? origin.lock : await this.env.store.lock?.(agentId);
    try {
      this.log = await this.openLog();
    } catch (error) {
      await this.releaseLock();
      throw error;
    }
    for (const event of this.log.events) this.env.gate.observe(event);
    this.log.subscribe((event) => this.env.gate.observe(event));
  }

  private async openLog(): Promise<SessionLog> {
    const { origin, agentId } = this.plan;
    const { store, clock } = this.env;
    if (origin.kind === 'resume')
      // `session.resumed` and the repair events follow once the tools are known (`registerTools`).
      return new SessionLog({ sessionId: agentId, store, clock, existing: origin.events });
    await store.create(agentId);
    this.createdSession = true;
    const log = new SessionLog({ sessionId: agentId, store, clock });
    if (origin.kind === 'fork') log.appendBuilt(origin.seed);
    return log;
  }

  /**
   * The agent's own tools and its MCP servers' tools, as its permission mode offers them now (the mode a
   * plan or the host switched to, see `mode.changed`); in plan mode, `exit_plan_mode` too.
   */
  private offer(): void {
    const { plan } = this;
    const mode = this.env.gate.mode;
    const own = [...plan.tools, ...this.skills.tools, ...(plan.mcp?.tools() ?? [])];
    const recorded = plan.toolResults;
    const all = recorded ? own.map((tool) => recorded.wrap(tool, () => this.requireLog())) : own;
    const offered = toolsOfferedInMode(all, mode);
    // A subagent's mode is capped by its parent's: it has no plan to put to the host.
    if (mode === 'plan' && plan.parent === undefined) offered.push(this.exitPlanMode());
    this.offeredMode = mode;
    this.tools.clear();
    for (const tool of offered) {
      if (this.tools.has(tool.name)) throw new ConfigError(`two tools are named "${tool.name}"`);
      this.tools.set(tool.name, tool);
    }
    this.specs = offered.map(describeTool);
  }

  /**
   * Before a step: applies the MCP tool lists that changed since the last one and says what the step
   * offers, or `undefined` when nothing changed. A list that cannot be offered (a name taken by another
   * tool) leaves the tools as they were.
   */
  syncTools(report = false, systemChanged = false): ToolsUpdate | undefined {
    const changes = this.plan.mcp?.takeChanges(this.requireLog().events.length) ?? [];
    const retool = changes.length > 0 || this.offeredMode !== this.env.gate.mode;
    if (!retool && !report && !systemChanged) return undefined;
    let applied = changes;
    if (retool) {
      const before = new Map(this.tools);
      try {
        this.offer();
      } catch {
        this.tools.clear();
        for (const [name, tool] of before) this.tools.set(name, tool);
        if (!report && !systemChanged) return undefined;
        applied = [];
      }
    }
    if (retool || systemChanged) this.systemHash = hashText(`${this.system}\n${JSON.stringify(this.specs)}`);
    return { changes: applied, toolNames: [...this.tools.keys()], systemHash: this.systemHash };
  }

  /** Closes the MCP servers this agent started; the processes have exited when it resolves. */
  async closeServers(): Promise<void> {
    await this.plan.mcp?.close();
  }

  /** The tools offered and the MCP servers started, as `session.start` and `session.resumed` record them. */
  private offeredConfig(): Record<string, unknown> {
    const servers = this.plan.mcp?.servers() ?? [];
    const mcp = Object.fromEntries(
      servers.map(({ server, transport, tools }) => [server, { transport, tools }]),
    );
    return { tools: this.specs, ...(servers.length > 0 ? { mcp } : {}) };
  }

  private async registerTools(): Promise<void> {
    const { plan } = this;
    await this.env.checkWorkspace(plan.cwd);
    await this.skills.load(plan.skills, this.requireLog().events, plan.cwd);
    this.env.gate.protectFolders(this.skills.readOnlyFolders());
    this.offer();
    const recorded = recordedSystem(this.requireLog().events);
    let instructionFiles: Record<string, unknown> = {};
    if (recorded !== undefined) {
      // A resumed or forked conversation keeps the system prompt it was started with.
      this.system = recorded;
    } else {
      const project = await instructionsFor(plan.projectInstructions, plan.cwd);
      instructionFiles = project.startConfig;
      const parts = [plan.instructions, project.text, this.skills.promptText];
      this.system = parts.filter((part) => part !== '').join('\n\n');
    }
    this.systemHash = hashText(`${this.system}\n${JSON.stringify(this.specs)}`);
    if (plan.origin.kind === 'new') {
      const log = this.requireLog();
      log.append({
        type: 'session.start',
        data: {
          agentId: plan.agentId,
          ...(plan.parent ? { parent: plan.parent } : {}),
          config: {
            ...plan.config,
            ...this.skills.startConfig(),
            ...instructionFiles,
            system: this.system,
            ...this.offeredConfig(),
          },
        },
      });
      await log.flush();
    } else if (plan.origin.kind === 'resume') {
      // They wait in memory for the first flush, so a rollback has nothing to remove.
      const config = { ...plan.config, ...this.offeredConfig() };
      logResumedSegment(this.requireLog(), config, plan.origin.repaired);
    }
    // The environment block follows the recorded (or new) prompt: the last one the log holds.
    this.baseSystem = this.system;
    this.environment.restore(this.requireLog().events);
    this.system = this.composeSystem();
    this.systemHash = hashText(`${this.system}\n${JSON.stringify(this.specs)}`);
  }
}

/** A tool built without `defineTool` may have an input schema JSON Schema cannot express. */
function describeTool(tool: AnyTool): ToolSpec {
  try {
    return toolSpec(tool);
  } catch (error) {
    throw new ConfigError(
      `tool "${tool.name}": its input cannot be described to the model: ${messageOf(error)}`,
      {
        cause: error,
      },
    );
  }
}

function liveInThisSystem(agentId: string): ConfigError {
  return new ConfigError(`agent "${agentId}" is already live in this system (one live owner per session)`);
}

function recordedSystem(events: readonly LogEvent[]): string | undefined {
  const start = events[0];
  if (start?.type !== 'session.start') return undefined;
  const config = start.data.config as { system?: unknown } | undefined;
  return typeof config?.system === 'string' ? config.system : undefined;
}

/** A short, stable content hash (32 bits, hex) to tell system prompts apart in the log. */
function hashText(text: string): string {
  return fnv1a(text).toString(16).padStart(8, '0');
}
