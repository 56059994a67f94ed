// What an agent is, as data, before any of it exists: where its session comes from, what `session.start`
// records about how it runs, and the agent chart's input. Pure: no resource, no callback, no clock. The
// body (agent-body.ts) builds the agent from it; the handle (agent-handle.ts) is what the host holds.
import { extended } from '../core/extended.ts';
import type { AgentInput } from '../machines/agent.ts';
import type { HookFlags } from '../machines/hook-events.ts';
import type { RetryPolicy } from '../machines/retry-policy.ts';
import type { PermissionMode } from '../permissions/modes.ts';
import { contextWindowOf, type Provider } from '../providers/types.ts';
import { lastContextUse } from '../session/context-tokens.ts';
import { nextTurnNumber, pendingInbox } from '../session/repair.ts';
import type { ResumePoint } from '../session/resume-point.ts';
import { outputOfTurn } from '../session/typed-turns.ts';
import type { LogEvent, SessionLock } from '../session/types.ts';
import type { Limits } from './options.ts';
import type { CompactionConfig } from './options-schema.ts';
import type { WorktreeRecord } from './worktrees/worktree-plan.ts';

/** Where an agent's session comes from. */
export type AgentOrigin =
  | { kind: 'new' }
  /**
   * `events` are the loaded log; `repaired` what repair appends to close it; `lock` the session's lock,
   * taken before the log was read, which the agent then owns.
   */
  | {
      kind: 'resume';
      events: LogEvent[];
      repaired: LogEvent[];
      lock?: SessionLock | undefined;
      /** Where it continues: a turn left waiting is continued, not repaired. */
      point?: ResumePoint;
    }
  /** `seed` is the new session's first events (a new session.start and the copied prefix). */
  | { kind: 'fork'; seed: LogEvent[] };

export type AgentSpec = {
  agentId: string;
  /** The key its ports are registered under, which is also its actor's system id (unique per launch). */
  key: string;
  /** The agent that started this one, for a subagent. */
  parent?: string;
  /** Its own system prompt; project instructions, skills and the environment block are added at setup. */
  instructions: string;
  cwd: string;
  /** What `session.start` records of how it runs; the tools stage adds prompt, tools, skills and files. */
  startConfig: Record<string, unknown>;
  /** The agent chart's input: where the session stands (turns, queued input, context), how steps behave. */
  input: AgentInput;
};

/** What an agent spec is made from: the launch's identity and origin, and how the system runs agents. */
export type SpecParts = {
  agentId: string;
  key: string;
  origin: AgentOrigin;
  provider: Pick<Provider, 'name' | 'model' | 'contextWindow' | 'promptCache' | 'prices'>;
  instructions: string;
  parent?: string | undefined;
  cwd: string;
  /** An isolated agent's worktree (`cwd` is in it), recorded in `session.start` after `cwd`. */
  worktree?: WorktreeRecord;
  /** The agent makes its worktree at creation and finishes it at dispose (not in a replay). */
  isolated: boolean;
  permissionMode: PermissionMode;
  limits: Limits;
  compaction: CompactionConfig;
  retry: Omit<RetryPolicy, 'maxAttempts'>;
  /** The hook points that have hooks (the charts wait only there). */
  hooks: HookFlags;
  /** Run the pre-step work before every step (a pre-step hook, or MCP servers whose tool lists change). */
  preStepEveryStep: boolean;
  /** Run the pre-step work before each turn's first step (the environment block is refreshed there). */
  preStepAtTurnStart: boolean;
  /** `sessionEnd` hooks run when this agent is disposed. */
  sessionEndHooks: boolean;
  /** The agent starts MCP servers of its own (a subagent uses its parent's through its tools). */
  startsServers: boolean;
  /** A job's task: its place in the job (`JobPlace`), recorded last in `session.start`. */
  job?: unknown;
};

export function agentSpec(parts: SpecParts): AgentSpec {
  const { agentId, key, provider, cwd, permissionMode, limits } = parts;
  const contextWindow = contextWindowOf(provider);
  return {
    agentId,
    key,
    ...(parts.parent !== undefined ? { parent: parts.parent } : {}),
    instructions: parts.instructions,
    cwd,
    startConfig: {
      provider: provider.name,
      model: provider.model,
      // The window accounting and automatic compaction used: a replay reports the same one.
      contextWindow,
      // The prefix caching its requests asked for: a replay sends the same markers.
      ...(provider.promptCache !== undefined ? { promptCache: provider.promptCache } : {}),
      // What its tokens cost then: the estimate of a replay or a later `/cost` uses the same prices.
      ...(provider.prices !== undefined ? { prices: provider.prices } : {}),
      cwd,
      ...(parts.worktree ? { worktree: parts.worktree } : {}),
      permissionMode,
      limits,
      // The policy compaction followed, so a replay compacts at the same steps with the same instructions.
      compaction: compactionPolicy(parts.compaction),
      ...(parts.job !== undefined ? { job: parts.job } : {}),
    },
    input: chartInput(parts, contextWindow),
  };
}

/** The events the agent starts from: a resumed log with its repair, a fork's seed, or none. */
export function originEvents(origin: AgentOrigin): LogEvent[] {
  if (origin.kind === 'resume') return [...origin.events, ...origin.repaired];
  return origin.kind === 'fork' ? origin.seed : [];
}

function chartInput(parts: SpecParts, contextWindow: number): AgentInput {
  const { agentId, limits, compaction } = parts;
  const events = originEvents(parts.origin);
  const { usedTokens, compactedSince } = lastContextUse(events);
  return {
    agentId,
    agentKey: parts.key,
    lastTurn: nextTurnNumber(events) - 1,
    inbox: pendingInbox(events).map(({ seq: _seq, ...item }) => item),
    limits,
    preStepEveryStep: parts.preStepEveryStep,
    preStepAtTurnStart: parts.preStepAtTurnStart,
    ...(parts.sessionEndHooks ? { sessionEndHooks: true } : {}),
    ...(parts.startsServers ? { startsServers: true } : {}),
    ...(parts.isolated ? { isolated: true } : {}),
    step: {
      model: parts.provider.model,
      retry: extended(parts.retry, { maxAttempts: limits.maxAttempts }),
      maxParallelTools: limits.maxParallelTools,
      jitterKey: agentId,
      compactOnOverflow: compaction.enabled,
      ...(Object.keys(parts.hooks).length > 0 ? { hooks: parts.hooks } : {}),
    },
    compaction: { enabled: compaction.enabled, threshold: compaction.threshold },
    // A resumed session knows its context from the last answered request in its log.
    contextUsage: { usedTokens, contextWindow },
    compactionTried: compactedSince,
    ...resumeOf(parts.origin),
  };
}

/** A resumed session's turn that was left waiting (on its tools or its children), for the agent to continue. */
function resumeOf(origin: AgentOrigin): Pick<AgentInput, 'resume'> {
  const point = origin.kind === 'resume' ? origin.point : undefined;
  if (point?.kind !== 'waiting' && point?.kind !== 'waitingForAgents') return {};
  // A typed turn goes on checking its final answer against the format its `turn.start` recorded.
  const output = outputOfTurn(origin.kind === 'resume' ? origin.events : [], point.turn);
  const typed = output ? { output } : {};
  if (point.kind === 'waitingForAgents') {
    const { turn, step, usage, owed } = point;
    return { resume: { turn, step, usage, owed, ...typed } };
  }
  const { turn, step, usage, consecutiveUnknown, answer, calls } = point;
  return { resume: { turn, step, usage, consecutiveUnknown, answer, calls, ...typed } };
}

/** What of the compaction option a log can hold (the summarising model is a provider, not a value). */
function compactionPolicy(compaction: CompactionConfig): Record<string, unknown> {
  const { enabled, threshold, keepRecentTurns, instructions } = compaction;
  return { enabled, threshold, keepRecentTurns, ...(instructions !== undefined ? { instructions } : {}) };
}
