import { AgentStateError } from '../errors/agent-state-error.ts';
import { type PermissionMode, stricterMode } from '../permissions/modes.ts';
import { logReaches } from '../recorded/recorded-results.ts';
import type { SubagentResult } from '../tools/define-tool.ts';
import { outputOptionsOf } from '../tools/output-schema.ts';
import type { Agent } from './agent-handle.ts';
import {
  type ChildLaunch,
  type ChildRequest,
  type ChildSpec,
  childLaunch,
  logSpawned,
  type TreeMember,
} from './child-launch.ts';
import {
  type CreateAgentOptions,
  defaultSubagentLimits,
  type Limits,
  type SubagentLimits,
} from './options.ts';
import { lastTurnOf, runChild } from './subagent-runs.ts';
import { type SpawnCall, SubagentTools } from './subagent-tools.ts';

export type { ChildSpec, TreeMember } from './child-launch.ts';

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
  /**
   * Every tool of the system, as it runs: with `spawnSubagent` in its calls' context (and, once the system
   * offers them, `backgroundAgents`).
   */
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

  /** The live member `agentId`, if it is one. */
  member(agentId: string): TreeMember | undefined {
    return this.members.get(agentId);
  }

  /** Prepares a child of `parentId` (see `childLaunch`); throws the `ConfigError` the model reads. */
  prepareChild(parentId: string, request: ChildRequest, rejoin = false): ChildLaunch {
    const parent = this.members.get(parentId);
    if (!parent) throw new AgentStateError(`agent "${parentId}" is not live; it cannot start a subagent`);
    const { maxDepth, maxSteps } = this;
    const subagents = this.deps.subagents ?? {};
    return childLaunch(parentId, parent, request, {
      system: this.deps.limits,
      subagents,
      maxDepth,
      maxSteps,
      rejoin,
    });
  }

  /** `agentType` when it names one of `parentId`'s agent definitions (a host's own type does not). */
  definitionType(parentId: string, agentType: string | undefined): string | undefined {
    const definitions = this.members.get(parentId)?.agentDefinitions ?? [];
    return definitions.some((entry) => entry.name === agentType) ? agentType : undefined;
  }

  /** `child` is a live subagent of `parentId` until `release`: a mode change and a dispose reach it. */
  adopt(parentId: string, child: Agent): void {
    const siblings = this.children.get(parentId) ?? new Set<Agent>();
    this.children.set(parentId, siblings);
    siblings.add(child);
  }

  release(parentId: string, child: Agent): void {
    this.children.get(parentId)?.delete(child);
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
    const rejoin = this.rejoins.get(`${parentId} ${call.callId}`);
    this.rejoins.delete(`${parentId} ${call.callId}`);
    const launch = this.prepareChild(parentId, request, rejoin !== undefined);
    const { options, spec } = launch;
    const parent = this.members.get(parentId)!;
    const child = rejoin
      ? await this.deps.resumeChild(rejoin, options, spec)
      : await this.deps.launchChild(this.deps.childId(parentId, call.callId), options, spec);
    this.adopt(parentId, child);
    try {
      if (rejoin) return await runChild(child, () => child.whenTurnEnds(lastTurnOf(child)), call.signal);
      await this.reachRecordedPosition(parentId, call, 'agent.spawned');
      logSpawned(parent.log, call.callId, child.id);
      // The link is durable before the child works: a resumed parent finds a child that was left waiting.
      await parent.log.flush();
      // The host's `output` (taskTool's) wins over the definition's.
      const definitionOutput = launch.definition?.output;
      const typed = outputOptionsOf(request) ?? (definitionOutput ? { output: definitionOutput } : undefined);
      const result = await runChild(child, () => child.run(request.prompt, typed), call.signal);
      await this.reachRecordedPosition(parentId, call, 'tool.result');
      const notGranted = launch.definition?.notGranted ?? [];
      return notGranted.length > 0 ? { ...result, notGranted } : result;
    } finally {
      await child.dispose();
      this.release(parentId, child);
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
}
