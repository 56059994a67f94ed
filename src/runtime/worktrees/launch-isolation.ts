// Which worktree a launch works in, if any: one planned for it (`isolation: 'worktree'`), the one a resumed
// session recorded (found again, or made again, by the creation stage), or the one a replayed recording
// names (recorded again in `session.start`, never made: a replay's tools do not run there).
import { ConfigError } from '../../errors/config-error.ts';
import type { LogEvent } from '../../session/types.ts';
import type { AgentBody, AgentRegistry } from '../agent-body.ts';
import type { AgentOrigin } from '../agent-spec.ts';
import type { SystemConfig } from '../options-schema.ts';
import { planWorktree, recordedPlan, type WorktreePlan } from './worktree-plan.ts';

/** Where a launch works: decided by the system before assembly (planning a worktree asks git). */
export type Place = {
  /** Where the agent works unless it is isolated: the system's workspace, or a subagent's parent's. */
  cwd: string;
  /** The worktree planned for `isolation: 'worktree'`. */
  worktree?: WorktreePlan | undefined;
};

/** A launch's worktree; `live`: the creation and dispose stages make and finish it (not in a replay). */
export type Isolation = { plan: WorktreePlan; live: boolean };

/** What decides a launch's isolation. */
export type IsolationSources = {
  /** The worktree planned at launch for `isolation: 'worktree'`. */
  planned: WorktreePlan | undefined;
  origin: AgentOrigin;
  /** The recording a replay re-runs this session from (none outside a replay). */
  replayed: readonly LogEvent[] | undefined;
  /** The system replays a recording: no worktree is made or finished. */
  replaying: boolean;
};

export function isolationOf({
  planned,
  origin,
  replayed,
  replaying,
}: IsolationSources): Isolation | undefined {
  if (planned) return { plan: planned, live: true };
  const events = origin.kind === 'resume' ? origin.events : origin.kind === 'new' ? replayed : undefined;
  const start = events?.[0];
  if (start?.type !== 'session.start') return undefined;
  const plan = recordedPlan((start.data.config ?? {}) as Record<string, unknown>);
  return plan ? { plan, live: !replaying } : undefined;
}

/**
 * Where a launch works: a subagent where its parent does (its worktree, when it is isolated), any other
 * agent in the system's workspace; with `isolation: 'worktree'`, in a new worktree of that workspace's
 * repository (not in a replay: a replayed agent names the worktree its recording did, and makes none).
 * Answered at once without a worktree to plan: a launch then takes its ids in the same tick as before, so
 * the ids of agents launched side by side (and every recording's replay) stay as they were.
 */
export function placeOf(
  system: { config: SystemConfig; registry: AgentRegistry },
  launch: {
    agentId: string;
    origin: AgentOrigin;
    options: { child?: { parent: string }; isolation?: 'worktree' };
  },
): Place | Promise<Place> {
  const { agentId, origin, options } = launch;
  const { config, registry } = system;
  const parent = options.child ? (registry.get(options.child.parent) as AgentBody | undefined) : undefined;
  const cwd = parent?.cwd ?? config.cwd;
  if (options.isolation !== 'worktree' || origin.kind !== 'new' || config.hookReplay) return { cwd };
  return planWorktree(cwd, agentId).then((worktree) => ({ cwd, worktree }));
}

/** A fork of a session that ran in a worktree of its own is refused (not supported): its events otherwise. */
export function refuseIsolatedFork(sessionId: string, events: LogEvent[]): LogEvent[] {
  const config = (events[0]?.data as { config?: { worktree?: unknown } } | undefined)?.config;
  if (config?.worktree === undefined) return events;
  throw new ConfigError(
    `forkAgent: session "${sessionId}" ran in a worktree of its own (isolation); forking such a session is not supported`,
  );
}
