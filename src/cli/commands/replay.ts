import { resolve } from 'node:path';
import { loadRecording } from '../../inspector/recorded-source.ts';
import { sessionIdFromFile } from '../../session/file-store.ts';
import { isEvent } from '../../session/types.ts';
import { type CliIo, line, wantsColor } from '../io.ts';
import { TranscriptRenderer } from '../render.ts';

/**
 * `agentchart replay FILE`: re-renders a recorded session as a transcript (turns, steps, assistant text,
 * tool calls and results, retries). It only reads the log — a torn last line is skipped, never cut off
 * the file, which another process may still be writing — no model is called and no tool runs.
 */
export async function replayCommand(file: string, io: CliIo): Promise<number> {
  const path = resolve(io.cwd, file);
  const sessionId = sessionIdFromFile(path);
  const { sessions, warnings } = await loadRecording(path);
  const events = sessions[0]?.events ?? [];
  for (const warning of warnings) line(io.stderr, `agentchart: ${warning}`);
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
