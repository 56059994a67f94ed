import { ConfigError } from '../errors/config-error.ts';
import type { ReplayDivergenceError } from '../errors/replay-divergence-error.ts';
import { firstDivergence } from '../session/compare-logs.ts';
import { assertSessionStarted, parseLogText } from '../session/log-text.ts';
import { errorCode, pathError } from '../session/path-errors.ts';
import { readLogFile } from '../session/read-log-file.ts';
import type { LogEvent } from '../session/types.ts';
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
 * Re-runs a recording through the current runtime (recorded model responses, ids and clock; the tool
 * results from the log unless `options.tools` says live; the host's approver and hooks from `options`)
 * and compares the new log with it, byte for byte.
 */
export async function checkReplay(
  recorded: readonly LogEvent[],
  options: ReplayOptions = {},
): Promise<ReplayCheck> {
  const run = await replaySession(recorded, { setup: await replaySetup(recorded, options) });
  const stopped = run.stopped ? { stopped: run.stopped } : {};
  const divergence = firstDivergence(recorded, run.events, run.stopped);
  return { events: recorded.length, ...(divergence ? { divergence } : {}), ...stopped };
}

/**
 * For vitest or node:test: re-runs a recorded session (a file path or its events) through the current
 * runtime and throws `ReplayDivergenceError` when the runtime, the prompts, the permissions or the hooks
 * now behave differently: the first diverging `seq`, the event type, the fields that differ (`changes`),
 * one line of `reason` and both lines. By default the tool results come from the log (recorded tools: no
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
  options: ReplayOptions = {},
): Promise<void> {
  const recorded = typeof fileOrEvents === 'string' ? await readRecording(fileOrEvents) : fileOrEvents;
  const check = await checkReplay(recorded, options);
  if (check.divergence) throw check.divergence;
}
