// A recorded session and the sessions of the subagents it started, read for a replay. The file store keeps
// a subagent's log beside its parent's (`<dir>/<childSessionId>.jsonl`, the id its parent logged in
// `agent.spawned`), so a tree copied to another folder together replays there.
import { isSafeId } from '../core/safe-id.ts';
import { ConfigError } from '../errors/config-error.ts';
import { sessionFileLocation, sessionFilePath } from '../session/session-files.ts';
import { isEvent, type LogEvent } from '../session/types.ts';

/** One `agent.spawned` of a log: the call that started a subagent, and the subagent's session. */
export type SpawnedChild = { callId: string; childSessionId: string };

/**
 * A recording with its subagents: `subagents` holds the log of every session the tree started, by session
 * id (children, their children, …; empty when the session started none), `files` where each was read.
 */
export type RecordedTree = {
  events: LogEvent[];
  subagents: Map<string, LogEvent[]>;
  files: Map<string, string>;
};

/** The subagents a log started, in log order. */
export function spawnedChildren(events: readonly LogEvent[]): SpawnedChild[] {
  return events.flatMap((event) =>
    isEvent(event, 'agent.spawned')
      ? [{ callId: event.data.callId, childSessionId: event.data.childSessionId }]
      : [],
  );
}

/** How deep a tree is followed: the `task` tool's own limit is far lower, so only a loop gets here. */
const maxTreeDepth = 16;

/**
 * Reads the recording at `file` and, beside it, the log of every subagent it started (and theirs).
 * `read` reads one log file (the recording reader: a torn last line skipped, the file never changed). A
 * child whose log is missing is a ConfigError naming the child, the call that started it and the path
 * looked at; so is a child id that cannot name a file, or a tree that loops.
 */
export async function readRecordedTree(
  file: string,
  read: (file: string) => Promise<LogEvent[]>,
): Promise<RecordedTree> {
  const { dir, sessionId } = sessionFileLocation(file);
  const events = await read(file);
  const tree: RecordedTree = { events, subagents: new Map(), files: new Map([[sessionId, file]]) };
  const visit = async (parentId: string, parentEvents: readonly LogEvent[], depth: number) => {
    for (const { callId, childSessionId } of spawnedChildren(parentEvents)) {
      const where = `subagent session "${childSessionId}" (started by call ${callId} of session "${parentId}")`;
      if (!isSafeId(childSessionId)) throw new ConfigError(`${where} has an id that names no log file`);
      if (tree.files.has(childSessionId) || depth >= maxTreeDepth)
        throw new ConfigError(`${where} is already part of the tree: the logs loop`);
      const childFile = sessionFilePath(dir, childSessionId);
      const childEvents = await read(childFile).catch((error: unknown) => {
        throw new ConfigError(
          `${where} has no readable log: looked for ${childFile}. A tree replays from all its logs: ` +
            "copy the subagents' logs beside the parent's file",
          { cause: error },
        );
      });
      tree.subagents.set(childSessionId, childEvents);
      tree.files.set(childSessionId, childFile);
      await visit(childSessionId, childEvents, depth + 1);
    }
  };
  await visit(sessionId, events, 0);
  return tree;
}

/**
 * Checks that `subagents` holds a log for every subagent the recording (and each child) started; a missing
 * one is a ConfigError naming it and the call that started it.
 */
export function assertTreeComplete(
  sessionId: string,
  events: readonly LogEvent[],
  subagents: ReadonlyMap<string, readonly LogEvent[]>,
): void {
  const check = (parentId: string, parentEvents: readonly LogEvent[], depth: number) => {
    for (const { callId, childSessionId } of spawnedChildren(parentEvents)) {
      const childEvents = subagents.get(childSessionId);
      if (childEvents === undefined)
        throw new ConfigError(
          `subagent session "${childSessionId}" (started by call ${callId} of session "${parentId}") ` +
            'has no log: give the logs of the subagents with the recording (subagentLogs: a Map of their events by session id)',
        );
      if (depth < maxTreeDepth) check(childSessionId, childEvents, depth + 1);
    }
  };
  check(sessionId, events, 0);
}
