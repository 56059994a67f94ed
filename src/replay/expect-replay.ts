import { ConfigError } from '../errors/config-error.ts';
import type { ReplayDivergenceError } from '../errors/replay-divergence-error.ts';
import { assertSessionStarted, parseLogText } from '../session/log-text.ts';
import { errorCode, pathError } from '../session/path-errors.ts';
import { readLogFile } from '../session/read-log-file.ts';
import type { LogEvent } from '../session/types.ts';
import { firstTreeDivergence } from './compare-tree.ts';
import { type RecordedTree, readRecordedTree } from './recorded-tree.ts';
import { replaySession } from './replay-session.ts';
import { type ReplayOptions, replaySetup } from './replay-tools.ts';

/** What a replay check found: the events compared, and the first divergence if behaviour changed. */
export type ReplayCheck = { events: number; divergence?: ReplayDivergenceError; stopped?: string };

/** Reads a recorded session file (read-only: a torn last line is skipped, never cut off the file). */
export async function readRecording(file: string): Promise<LogEvent[]> {
  let text: string;
  try {
    text = await readLogFile(file, 'read the recording');
  } catch (error) {
    if (errorCode(error) === 'ENOENT')
      throw new ConfigError(`session log ${file} does not exist`, { cause: error });
    throw pathError(error, 'read the recording', file);
  }
  const { events } = parseLogText(text, file);
  assertSessionStarted(events, 'there is nothing to replay', file);
  return events;
}

/**
 * Reads a recorded session file and the logs of the subagents it started, from beside it (the file store
 * keeps `<childSessionId>.jsonl` in the parent's folder). A missing child log is a ConfigError naming the
 * child and the path looked at.
 */
export function readRecordingTree(file: string): Promise<RecordedTree> {
  return readRecordedTree(file, readRecording);
}

/**
 * The options of a replay check: those of `ReplayOptions`, and for a recording that started subagents
 * (`agent.spawned`) given as events, the subagents' recorded logs by session id (and theirs in turn).
 */
export type ReplayCheckOptions = ReplayOptions & { subagentLogs?: ReadonlyMap<string, readonly LogEvent[]> };

/**
 * Re-runs a recording through the current runtime (recorded model responses, ids and clock; the tool
 * results from the log unless `options.tools` says live; the host's approver and hooks from `options`)
 * and compares the new log with it, byte for byte: the log of every subagent too, with its own recording.
 * `events` counts the events of every log compared.
 */
export async function checkReplay(
  recorded: readonly LogEvent[],
  options: ReplayCheckOptions = {},
): Promise<ReplayCheck> {
  const { subagentLogs: subagents = new Map<string, readonly LogEvent[]>(), ...rest } = options;
  const setup = await replaySetup(recorded, rest);
  const run = await replaySession(recorded, { setup, subagentLogs: subagents });
  const stopped = run.stopped ? { stopped: run.stopped } : {};
  const divergence = firstTreeDivergence(
    { recorded, replayed: run.events, stopped: run.stopped },
    { recorded: subagents, replayed: run.subagents },
  );
  const events = [...subagents.values()].reduce((total, log) => total + log.length, recorded.length);
  return { events, ...(divergence ? { divergence } : {}), ...stopped };
}

/**
 * For vitest or node:test: re-runs a recorded session (a file path or its events) through the current
 * runtime and throws `ReplayDivergenceError` when the runtime, the prompts, the permissions or the hooks
 * now behave differently: the first diverging `seq`, the event type, the fields that differ (`changes`),
 * one line of `reason` and both lines. A session that started subagents replays as a tree: each child from
 * its own log, found beside the file (or given as `subagentLogs` with events); a child's divergence names its
 * session (`sessionId`). By default the tool results come from the log (recorded tools: no
 * tool runs, any folder will do); `tools: 'live'` (the built-in tools the recording offered) or the
 * host's tools run them again, in `workspace` (a copy restored to how it was when the session started).
 *
 * @example
 * it('still fixes the bug the same way', () => expectReplay('test/sessions/fix-bug.jsonl'));
 * it('and the tools still answer the same', () =>
 *   expectReplay('test/sessions/fix-bug.jsonl', { tools: 'live', workspace: 'test/fixtures/fix-bug' }));
 */
export async function expectReplay(
  fileOrEvents: string | readonly LogEvent[],
  options: ReplayCheckOptions = {},
): Promise<void> {
  const tree = typeof fileOrEvents === 'string' ? await readRecordingTree(fileOrEvents) : undefined;
  const recorded = tree?.events ?? (fileOrEvents as readonly LogEvent[]);
  const check = await checkReplay(recorded, tree ? { ...options, subagentLogs: tree.subagents } : options);
  if (check.divergence) throw check.divergence;
}
