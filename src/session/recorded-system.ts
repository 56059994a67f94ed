// The system prompt a session recorded (`session.start.config.system`): what a resumed, forked or replayed
// agent is given again, since it holds what the recording read (instruction files, catalogues).
import type { LogEvent } from './types.ts';

/** The recorded system prompt, or undefined when the log does not begin with a `session.start` holding one. */
export function recordedSystemPrompt(events: readonly LogEvent[]): string | undefined {
  const start = events[0];
  if (start?.type !== 'session.start') return undefined;
  const config = start.data.config as { system?: unknown } | undefined;
  return typeof config?.system === 'string' ? config.system : undefined;
}

/** The job place a recorded `session.start` holds (`config.job`, see `JobPlace`), as it was written. */
export function recordedJobPlace(events: readonly LogEvent[]): unknown {
  const start = events[0];
  return start?.type === 'session.start' ? (start.data.config as { job?: unknown }).job : undefined;
}
