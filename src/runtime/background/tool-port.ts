// What one tool call of an agent may do with background agents (`ToolContext.backgroundAgents`): the
// runtime's operations bound to the calling agent, its call and the call's signal, plus waiting, stopping
// and listing, which only tool calls do.
import type { Clock } from '../../core/clock.ts';
import { pendingInbox } from '../../session/repair.ts';
import type {
  BackgroundAgentStatus,
  BackgroundAgentsPort,
  BackgroundWaitOutcome,
} from '../../tools/background-port.ts';
import type { AgentDirectory } from './agent-directory.ts';
import type { BackgroundAgents } from './background-agents.ts';
import { waitForMail } from './wait.ts';

/** The capability one tool call of `agentId` gets. */
export function toolPort(
  agents: BackgroundAgents,
  clock: Clock,
  call: { agentId: string; callId: string; signal: AbortSignal },
): BackgroundAgentsPort {
  const { agentId, callId, signal } = call;
  const { directory } = agents;
  return {
    spawn: (request) => agents.spawn(agentId, callId, request, signal),
    send: (to, text) => agents.send({ from: agentId, callId, to, text }, signal),
    wait: (ids, timeoutMs) => wait(directory, { agentId, ids, timeoutMs, signal, clock }),
    stop: async (id) => {
      directory.liveMember(agentId);
      const record = directory.record(id);
      if (!record || record.start.parentId !== agentId) throw directory.unknown(agentId, id);
      const stopped = record.status === 'running' && !record.stopping;
      await agents.stopRecord(record);
      return { agent: record.view(), stopped };
    },
    list: (): BackgroundAgentStatus[] => {
      const parent = directory.parentOf(agentId);
      const children = directory.recordsOf(agentId).map((record) => record.view());
      return parent === undefined ? children : [directory.viewOf(agentId, parent), ...children];
    },
  };
}

/** `wait_agents`: `ids` (default: the caller's running children), resolved to the sessions they name. */
function wait(
  directory: AgentDirectory,
  call: {
    agentId: string;
    ids: readonly string[] | undefined;
    timeoutMs: number;
    signal: AbortSignal;
    clock: Clock;
  },
): Promise<BackgroundWaitOutcome> {
  const { agentId, ids } = call;
  const member = directory.liveMember(agentId);
  const targets = ids
    ? [...new Set(ids.map((id) => directory.addressOf(agentId, id)))]
    : directory
        .recordsOf(agentId)
        .filter((record) => record.status === 'running')
        .map((record) => record.id);
  // A wait for the parent ends only with its mail (or the time); children end it by finishing too.
  const parent = directory.parentOf(agentId);
  const settled = () => targets.every((id) => id !== parent && directory.record(id)?.status !== 'running');
  const unread = pendingInbox(member.log.events).flatMap((item) =>
    item.from !== undefined && targets.includes(item.from) ? [item.from] : [],
  );
  return waitForMail({
    targets,
    unread,
    views: () => targets.map((id) => directory.viewOf(agentId, id)),
    settled,
    listen: (listener) => directory.listen(agentId, listener),
    clock: call.clock,
    timeoutMs: call.timeoutMs,
    signal: call.signal,
  });
}
