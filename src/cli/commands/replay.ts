import { resolve } from 'node:path';
import { loadRecording } from '../../inspector/recorded-source.ts';
import { sessionIdFromFile } from '../../session/session-files.ts';
import { isEvent, type LogEvent } from '../../session/types.ts';
import { CliError } from '../cli-error.ts';
import { type ReplaySourceFlags, readReplaySource } from '../replay-source.ts';
import { type CliIo, line, wantsColor } from '../terminal/io.ts';
import { TranscriptRenderer } from '../terminal/render.ts';

/**
 * `agentchart replay FILE` (or `replay ID --postgres URL`, a session a worker kept there): re-renders a recorded session as a transcript (turns, steps, assistant text,
 * tool calls and results, retries). It only reads the log — a torn last line is skipped, never cut off
 * the file, which another process may still be writing — no model is called and no tool runs.
 */
export async function replayCommand(file: string, io: CliIo, flags: ReplaySourceFlags = {}): Promise<number> {
  let path: string;
  let sessionId: string;
  let events: LogEvent[];
  if (flags.postgres !== undefined) {
    ({ label: path, events } = await readReplaySource(file, flags, io));
    sessionId = file;
  } else {
    if (flags.export !== undefined) throw new CliError('--export is for a session read with --postgres');
    path = resolve(io.cwd, file);
    sessionId = sessionIdFromFile(path);
    const { sessions, warnings } = await loadRecording(path);
    events = sessions[0]?.events ?? [];
    for (const warning of warnings) line(io.stderr, `agentchart: ${warning}`);
  }
  const renderer = new TranscriptRenderer(io.stdout, wantsColor(io.stdout, io.env));
  renderer.print(
    renderer.paint('bold', `Replay of ${path} (${events.length} events, recorded; no model is called)`),
  );
  for (const event of events) renderer.event({ type: 'log', agentId: sessionId, event });
  const turns = events.filter((event) => isEvent(event, 'turn.end')).length;
  const steps = events.filter((event) => isEvent(event, 'step.start')).length;
  const calls = events.filter((event) => isEvent(event, 'tool.call')).length;
  renderer.print(`End of replay: ${turns} turn(s), ${steps} step(s), ${calls} tool call(s).`);
  return 0;
}
