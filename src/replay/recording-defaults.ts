// What a replayed segment takes from the recording where the host's setup says nothing: who answers
// approvals, and how the session ran (workspace, mode, limits, compaction) as `session.start` recorded it.
import type { Approver } from '../actors/approval.ts';
import { type PermissionMode, permissionModes } from '../permissions/modes.ts';
import type { AgentSystemOptions, CompactionOptions, Limits } from '../runtime/options.ts';
import { isEvent, type LogEvent } from '../session/types.ts';
import { hostDecisions, type ReplayInput } from './replay-inputs.ts';

/**
 * Who answers approvals when the host gives no approver: whoever did in the recording, so every decision
 * replays as logged. Nobody, when nothing was put to anyone (`approval.asked`): the calls that asked were
 * denied headless, and are again. A person (`manual`: the recorded `agent.approve`/`deny` are inputs)
 * when the recording has a person's decisions; else the host's recorded answers, call by call.
 */
export function recordedApprover(
  root: { agentId: string; events: readonly LogEvent[] },
  inputs: readonly ReplayInput[],
  subagents: ReadonlyMap<string, readonly LogEvent[]>,
): Approver | undefined {
  const sessions = [[root.agentId, root.events] as const, ...subagents];
  if (!sessions.some(([, events]) => events.some((event) => isEvent(event, 'approval.asked'))))
    return undefined;
  if (inputs.some((input) => input.kind === 'decision')) return 'manual';
  // Call ids are the model's, so each session's answers are its own (a child's call may be named as its parent's).
  const decisions = new Map(sessions.map(([id, events]) => [id, hostDecisions(events)]));
  // A question the recording has no answer for stays open: the replay stops there, as it waits.
  return ({ agentId, callId }) => {
    const decision = decisions.get(agentId)?.get(callId);
    return decision ? Promise.resolve(decision) : new Promise(() => {});
  };
}

/** What `session.start` recorded about how the session ran, as system options. */
export function defaultsFrom(config: Record<string, unknown>): Partial<AgentSystemOptions> {
  const mode = permissionModes.find((known) => known === config.permissionMode) as PermissionMode | undefined;
  return {
    ...(typeof config.cwd === 'string' ? { cwd: config.cwd } : {}),
    ...(mode ? { permissionMode: mode } : {}),
    ...(config.limits && typeof config.limits === 'object'
      ? { limits: config.limits as Partial<Limits> }
      : {}),
    // Checked by createAgentSystem like any option: a damaged policy is a ConfigError naming it.
    ...(config.compaction && typeof config.compaction === 'object'
      ? { compaction: config.compaction as CompactionOptions }
      : {}),
  };
}
