import { AgentStateError } from '../errors/agent-state-error.ts';
import { ConfigError } from '../errors/config-error.ts';
import type { PermissionSettings } from '../permissions/gate.ts';
import { type PermissionMode, stricterMode } from '../permissions/modes.ts';
import type { Provider } from '../providers/types.ts';
import { logReaches } from '../recorded/recorded-results.ts';
import type { SessionLog } from '../session/session-log.ts';
import type { AnyTool, SubagentResult } from '../tools/define-tool.ts';
import { outputOptionsOf } from '../tools/output-schema.ts';
import type { Agent } from './agent-handle.ts';
import {
  type CreateAgentOptions,
  defaultSubagentLimits,
  type Limits,
  type SubagentLimits,
} from './options.ts';
import { lastTurnOf, logSpawned, runChild } from './subagent-runs.ts';
import { type SpawnCall, SubagentTools } from './subagent-tools.ts';

/** How a child agent is launched: its parent, its depth, its narrowed permissions and its limits. */
export type ChildSpec = { parent: string; depth: number; permissions: PermissionSettings; limits: Limits };

/** What the tree knows about one live agent. */
export type TreeMember = {
  /** 0 for an agent the host created, resumed or forked; parent depth + 1 for a subagent. */
  depth: number;
  /** The agent's tools as given (not wrapped), so a child can be handed a subset of them. */
  tools: readonly AnyTool[];
  /** The names of the tools the agent is offered (after its permission mode). */
  toolNames: readonly string[];
  provider: Provider;
  /** The agent's permission settings, with the mode it decides calls in now (it changes while it lives). */
  permissions: PermissionSettings;
  /** The agent that started this one, for a subagent. */
  parent?: string;
  log: SessionLog;
};

export type AgentTreeDeps = {
  /** The session id of the child that call `callId` of `parentId` starts (a replay gives the recorded one). */
  childId: (parentId: string, callId: string) => string;
  /**
   * In a replayed tree: how many events the parent's log held when the recording logged the call's
   * `agent.spawned` or its `tool.result` (see `SubagentRecordings.recordedAt`).
   */
  recordedAt?: (
    parentId: string,
    callId: string,
    type: 'agent.spawned' | 'tool.result',
  ) => number | undefined;
  limits: Limits;
  subagents: SubagentLimits | undefined;
  /** Creates a child agent in the same system (the host spawns it like any agent). */
  launchChild: (agentId: string, options: CreateAgentOptions, child: ChildSpec) => Promise<Agent>;
  /** Continues a child's stored session in the same system (`resumeAgent` for a subagent). */
  resumeChild: (sessionId: string, options: CreateAgentOptions, child: ChildSpec) => Promise<Agent>;
};

/**
 * The parent/child links of one agent system. It hands every tool a `spawnSubagent` capability, starts
 * subagents with permissions no wider than their parent's, logs `agent.spawned` in the parent's session,
 * and makes sure a parent's children are disposed before the parent is gone.
 */
export class AgentTree {
  private readonly members = new Map<string, TreeMember>();
  private readonly children = new Map<string, Set<Agent>>();
  /** Every tool of the system, as it runs: with `spawnSubagent` in its calls' context. */
  readonly tools = new SubagentTools((call) => this.spawn(call));
  /** Child sessions to continue instead of starting, by parent and call: `${parentId} ${callId}`. */
  private readonly rejoins = new Map<string, string>();
  private readonly maxDepth: number;
  private readonly maxSteps: number;

  constructor(private readonly deps: AgentTreeDeps) {
    this.maxDepth = deps.subagents?.maxDepth ?? defaultSubagentLimits.maxDepth;
    this.maxSteps = deps.subagents?.maxSteps ?? defaultSubagentLimits.maxSteps;
  }

  /**
   * Makes `agentId` a member. `rejoins` are a resumed agent's calls whose subagent was left waiting: when
   * such a call runs again, its `task` tool continues that child's session instead of starting a new one.
   */
  add(
    agentId: string,
    member: TreeMember,
    rejoins: readonly { callId: string; sessionId: string }[] = [],
  ): void {
    this.members.set(agentId, member);
    for (const { callId, sessionId } of rejoins) this.rejoins.set(`${agentId} ${callId}`, sessionId);
  }

  remove(agentId: string): void {
    this.members.delete(agentId);
    this.children.delete(agentId);
    for (const key of this.rejoins.keys()) if (key.startsWith(`${agentId} `)) this.rejoins.delete(key);
  }

  /** Whether `agentId` is a live subagent (it has a parent in this system). */
  isChild(agentId: string): boolean {
    return (this.members.get(agentId)?.depth ?? 0) > 0;
  }

  /** The loosest mode `agentId` may run in: its parent's mode now, for a subagent; none for the others. */
  modeCeiling(agentId: string): PermissionMode | undefined {
    const parent = this.members.get(agentId)?.parent;
    return parent === undefined ? undefined : this.members.get(parent)?.permissions.mode;
  }

  /**
   * `agentId` now runs in `mode`: its live subagents that run looser are switched to it (and theirs in
   * turn, through their own switch), so no subagent runs looser than its parent at any moment.
   */
  tightenChildren(agentId: string, mode: PermissionMode): void {
    for (const child of this.childrenOf(agentId)) {
      if (stricterMode(child.permissionMode, mode) === child.permissionMode) continue;
      try {
        child.setPermissionMode(mode);
      } catch (error) {
        // A child being disposed takes no more calls; any other failure is a bug to surface.
        if (!AgentStateError.isInstance(error)) throw error;
      }
    }
  }

  /** The live subagents started by `agentId`. */
  childrenOf(agentId: string): Agent[] {
    return [...(this.children.get(agentId) ?? [])];
  }

  /** Disposes every live child of `agentId` (each one disposes its own children first). */
  async disposeChildren(agentId: string): Promise<void> {
    await Promise.all(this.childrenOf(agentId).map((child) => child.dispose()));
  }

  /**
   * Starts a child of `parentId` for one tool call, runs `request.prompt` to the end of the child's turn
   * and disposes the child. When `signal` fires the child is cancelled (cause `parent`) and disposed. A call
   * that a resumed parent runs again continues its child's session (`rejoin`) and waits for the turn the
   * child was in to end, instead.
   */
  async spawn(call: SpawnCall): Promise<SubagentResult> {
    const { parentId, request } = call;
    const parent = this.members.get(parentId);
    if (!parent) throw new AgentStateError(`agent "${parentId}" is not live; it cannot start a subagent`);
    const rejoin = this.rejoins.get(`${parentId} ${call.callId}`);
    this.rejoins.delete(`${parentId} ${call.callId}`);
    if (!rejoin && parent.depth >= this.maxDepth) {
      throw new ConfigError(
        `subagent depth limit reached: this agent is at depth ${parent.depth} and subagents may nest at ` +
          `most ${this.maxDepth} deep. Do this work yourself instead of delegating it.`,
      );
    }
    const options = {
      tools: this.childTools(parent, request.tools),
      model: parent.provider,
      ...(request.instructions !== undefined ? { instructions: request.instructions } : {}),
    };
    const spec = this.childSpec(parentId, parent);
    const child = rejoin
      ? await this.deps.resumeChild(rejoin, options, spec)
      : await this.deps.launchChild(this.deps.childId(parentId, call.callId), options, spec);
    const siblings = this.children.get(parentId) ?? new Set<Agent>();
    this.children.set(parentId, siblings);
    siblings.add(child);
    try {
      if (rejoin) return await runChild(child, () => child.whenTurnEnds(lastTurnOf(child)), call.signal);
      await this.reachRecordedPosition(parentId, call, 'agent.spawned');
      logSpawned(parent.log, call.callId, child.id);
      // The link is durable before the child works: a resumed parent finds a child that was left waiting.
      await parent.log.flush();
      const typed = outputOptionsOf(request);
      const result = await runChild(child, () => child.run(request.prompt, typed), call.signal);
      await this.reachRecordedPosition(parentId, call, 'tool.result');
      return result;
    } finally {
      await child.dispose();
      siblings.delete(child);
    }
  }

  /** In a replayed tree, waits until the parent's log is where the recording's was for `type` of the call. */
  private async reachRecordedPosition(
    parentId: string,
    call: { callId: string; signal: AbortSignal },
    type: 'agent.spawned' | 'tool.result',
  ): Promise<void> {
    const at = this.deps.recordedAt?.(parentId, call.callId, type);
    const log = this.members.get(parentId)?.log;
    if (at !== undefined && log) await logReaches(log, at, call.signal);
  }

  private childSpec(parentId: string, parent: TreeMember): ChildSpec {
    const { permissions } = parent;
    const mode = stricterMode(permissions.mode, this.deps.subagents?.permissionMode ?? permissions.mode);
    return {
      parent: parentId,
      depth: parent.depth + 1,
      // Same rules, a mode no looser, and the parent's host to ask (none when headless: ask means deny); the
      // parent's skill folders stay read-only to it.
      permissions: {
        mode,
        allow: permissions.allow,
        ...(permissions.ask ? { ask: permissions.ask } : {}),
        deny: permissions.deny,
        canAsk: permissions.canAsk,
        ...(permissions.readOnlyFolders ? { readOnlyFolders: permissions.readOnlyFolders } : {}),
        ...(permissions.bypassDisabled ? { bypassDisabled: true } : {}),
      },
      limits: { ...this.deps.limits, maxSteps: this.maxSteps },
    };
  }

  private childTools(parent: TreeMember, names: readonly string[] | undefined): AnyTool[] {
    const offered = parent.tools.filter((tool) => parent.toolNames.includes(tool.name));
    if (names === undefined) return offered;
    const unknown = names.filter((name) => !parent.toolNames.includes(name));
    if (unknown.length > 0) {
      throw new ConfigError(
        `a subagent can only get tools this agent has; not available: ${unknown.join(', ')} ` +
          `(available: ${parent.toolNames.join(', ') || 'none'})`,
      );
    }
    return offered.filter((tool) => names.includes(tool.name));
  }
}
