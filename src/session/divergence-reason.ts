// One line of why a replayed event differs from the recorded one, in the words of the log: which tool
// answered differently, which decision was taken otherwise, what the runtime wrote instead.
import type { DivergenceChange } from '../errors/replay-divergence-error.ts';
import type { LogEvent } from './types.ts';

/**
 * The text a replay with recorded tools answers a call the recording has no result for
 * (replay/recorded-results.ts); here because the report reads it back to name the call.
 */
export const missingResultPrefix = 'the recording has no result for call';

type Divergence = {
  /** The recording, for the names of the calls the differing events are about. */
  recorded: readonly LogEvent[];
  expected: LogEvent | undefined;
  actual: LogEvent | undefined;
  changes: readonly DivergenceChange[];
  stopped?: string;
};

type Data = Record<string, unknown>;

/** Why the replay wrote `actual` where the recording has `expected`, in one line. */
export function divergenceReason(divergence: Divergence): string {
  const { expected, actual, stopped } = divergence;
  if (!actual)
    return stopped !== undefined
      ? `the replay stopped early: ${stopped}`
      : `the replay ended where the recording goes on with ${expected?.type}`;
  const call = (data: Data) => callName(divergence.recorded, data.callId);
  const now = actual.data as Data;
  // The recorded tools' answer to a call the log has no result for (replay/recorded-results.ts).
  if (actual.type === 'tool.result' && String(now.content).startsWith(missingResultPrefix))
    return `${call(now)} is not in the recording (no tool.result to answer it with)`;
  if (!expected) return `the replay wrote ${actual.type} past the recording's end`;
  const was = expected.data as Data;
  if (expected.type !== actual.type) {
    if (actual.type === 'approval.asked' && expected.type === 'approval.decided')
      return `the runtime asked for approval where the recording decided ${was.by} (${call(now)})`;
    if (actual.type === 'approval.decided' && expected.type === 'approval.asked')
      return `the runtime decided ${now.outcome} by ${now.by} where the recording asked for approval (${call(now)})`;
    return `the runtime wrote ${actual.type} where the recording has ${expected.type}`;
  }
  const paths = divergence.changes.map((change) => change.path);
  if (paths.length > 0 && paths.every((path) => path === 'ts'))
    return 'the same event, written at another time (the replay clock read another event)';
  switch (expected.type) {
    case 'session.start':
      return startReason(paths);
    case 'tool.result':
      return `${callName(divergence.recorded, was.callId, false)} answered differently`;
    case 'approval.decided':
      return `the ${call(was)} was decided otherwise: recorded ${was.outcome} by ${was.by}, replayed ${now.outcome} by ${now.by}`;
    case 'step.start':
      if (paths.some((path) => path.startsWith('data.toolNames'))) return 'the step offered other tools';
      if (paths.includes('data.systemHash'))
        return 'the system prompt or the tools described to the model changed';
      return 'the step asked another model';
    case 'hook.decided':
      return 'a hook decided differently';
    case 'tool.call':
    case 'assistant.message':
      return "the runtime read the recorded model answer differently (a change in the response reader or the replay's model)";
    default:
      if (paths.length === 0) return `the same ${expected.type}, written with its fields in another order`;
      return `the runtime wrote ${expected.type} with other content`;
  }
}

function startReason(paths: readonly string[]): string {
  const first = paths[0] ?? '';
  if (first.startsWith('data.config.tools')) return "the tools offered differ from the recording's";
  if (first.startsWith('data.config.system')) return "the system prompt differs from the recording's";
  if (first.startsWith('data.config.cwd')) return 'the workspace is not the recorded one';
  if (first.startsWith('data.config.')) return `the configuration differs from the recording's (${first})`;
  return "the session starts differently from the recording's";
}

/** `read_file call c1`, from the recorded `tool.call` of `callId` (`call c1` when the log has none). */
function callName(recorded: readonly LogEvent[], callId: unknown, withId = true): string {
  const call = recorded.find((event) => event.type === 'tool.call' && (event.data as Data).callId === callId);
  const name = call ? String((call.data as Data).name) : undefined;
  if (!withId) return name ?? `the tool of call ${String(callId)}`;
  return name ? `${name} call ${String(callId)}` : `call ${String(callId)}`;
}
