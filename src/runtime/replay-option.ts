// The `replay` option of `createAgentSystem`: a recorded session the system answers from instead of this
// machine. Its schema, and which parts of the runtime the recording answers for.
import { z } from 'zod/v4';
import { hostFunction, intact, must, plainIssue } from '../core/host-schema.ts';
import { recordedServers } from '../mcp/recorded-servers.ts';
import { parseLoadedEvents } from '../session/schema.ts';
import type { LogEvent } from '../session/types.ts';
import type { SubagentRecordings } from './replay/subagent-replay.ts';

/** A recorded session log (the events of one session), checked like a store's load. */
const recordedLog = z
  .custom<LogEvent[]>(Array.isArray, must('an array of log events'))
  .superRefine((value, context) => {
    try {
      parseLoadedEvents({ events: value });
    } catch (error) {
      context.addIssue(plainIssue(`must be the events of a recorded session: ${(error as Error).message}`));
    }
  });

export const replayOptionSchema = z.strictObject(
  {
    log: recordedLog,
    toolResults: z.enum(['recorded', 'live'], must('"recorded" or "live"')).optional(),
    subagents: intact<SubagentRecordings>(
      'subagent recordings ({ childSessionId, recordedAt, session })',
      z.object({ childSessionId: hostFunction, recordedAt: hostFunction, session: hostFunction }),
    ).optional(),
  },
  must('{ log: LogEvent[], toolResults?: "recorded" | "live" }'),
);

/**
 * What each part of the runtime takes from a recording it re-runs (the `replay` option): the log where the
 * recording has that part — its skill catalogue when it had skills, its MCP tools when it had servers —
 * and the tool results only when they are to be answered from the log.
 */
export function replayParts(replay: { log: LogEvent[]; toolResults?: 'recorded' | 'live' } | undefined) {
  if (replay === undefined) return {};
  const { log } = replay;
  const config = (log[0]?.data as { config?: { skills?: unknown } } | undefined)?.config;
  return {
    hooks: log,
    instructions: log,
    environment: log,
    skills: Array.isArray(config?.skills) ? log : undefined,
    // Always the recording's: none when it had none (a file found here must not start a type it never had).
    agents: log,
    mcp: Object.keys(recordedServers(log)).length > 0 ? log : undefined,
    toolResults: replay.toolResults === 'recorded' ? log : undefined,
  };
}
