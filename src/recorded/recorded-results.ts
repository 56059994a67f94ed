// Tool calls answered from a recording (a replay with recorded tools): no tool runs, so the check covers
// the runtime, charts, hooks, permissions and prompts, on any machine and in any folder. Lives here, not in
// runtime/agent-resources.ts, which offers the wrapped tools (that file is past 300 lines already).
import { missingResultPrefix } from '../session/divergence-reason.ts';
import type { SessionLog } from '../session/session-log.ts';
import { isEvent, type LogEvent } from '../session/types.ts';
import type { AnyTool, ToolOutput } from '../tools/define-tool.ts';

type RecordedResult = {
  /** The replayed log must hold this many events first: the last input given from outside before it. */
  after: number;
  outcome: string;
  content: string;
  error?: string | undefined;
};

/**
 * The recording's `tool.result` of every call id, and the tools wrapped to answer with them. A wrapped
 * call returns at once, as a quick tool would, unless something came from outside while it ran (a steer,
 * a follow-up, a person's decision, a mode change): then once the replayed log holds that too, as the
 * recording does before the result. A result the recording ended early
 * (`aborted`, `timeout`) is never returned, so the runtime ends the call the same way. A call that started
 * a subagent (`agent.spawned`) runs again: starting the child is the runtime's work, and the child re-runs
 * from its own log (its result is then the replayed child's answer, checked against the recording's); so
 * do `send_message` and `stop_agent`, whose work is the runtime's too.
 */
export class RecordedResults {
  private readonly results = new Map<string, RecordedResult>();
  private readonly wrapped = new WeakMap<AnyTool, AnyTool>();
  private readonly spawning = new Set<string>();

  constructor(recorded: readonly LogEvent[]) {
    let after = 0;
    for (const event of recorded) {
      if (fromOutside(event)) after = event.seq + 1;
      if (isEvent(event, 'agent.spawned')) this.spawning.add(event.data.callId);
      if (!isEvent(event, 'tool.result')) continue;
      const { callId, outcome, content, error } = event.data;
      this.results.set(callId, { after, outcome, content, error });
    }
  }

  /** `tool` as the model and the permission gate see it (name, schema, access), answering from the log. */
  wrap(tool: AnyTool, log: () => SessionLog): AnyTool {
    const known = this.wrapped.get(tool);
    if (known) return known;
    const answer: AnyTool = {
      ...tool,
      run: async (input, context): Promise<ToolOutput> => {
        if (this.spawning.has(context.callId) || runsAgain.has(tool.name)) return tool.run(input, context);
        const result = this.results.get(context.callId);
        if (!result)
          return { content: `${missingResultPrefix} ${context.callId} of ${tool.name}`, isError: true };
        await logReaches(log(), result.after, context.signal);
        if (result.outcome === 'aborted' || result.outcome === 'timeout') await aborted(context.signal);
        if (result.outcome === 'ok') return result.content;
        // A thrown error is logged as its message twice (`error`, `Error: …`): thrown again, it is again.
        if (result.error !== undefined && result.content === `Error: ${result.error}`)
          throw new Error(result.error);
        return { content: result.content, isError: true };
      },
    };
    this.wrapped.set(tool, answer);
    return answer;
  }
}

/**
 * Background agents' calls whose work is the runtime's, like starting a child: a message is delivered and a
 * child stopped again, and the recipient's and the child's logs are compared with their recordings.
 */
const runsAgain: ReadonlySet<string> = new Set(['send_message', 'stop_agent']);

/** Resolves once `log` holds `length` events, or `signal` fired (the runtime ended the call). */
export function logReaches(log: SessionLog, length: number, signal: AbortSignal): Promise<void> {
  if (log.events.length >= length || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      stop();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const stop = log.subscribe(() => {
      if (log.events.length >= length) done();
    });
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The events a replay gives again as inputs (see `replayInputs`): what came from outside the runtime. */
function fromOutside(event: LogEvent): boolean {
  if (isEvent(event, 'inbox.queued')) return true;
  if (isEvent(event, 'approval.decided')) return event.data.by === 'user';
  if (isEvent(event, 'mode.changed')) return event.data.by !== 'plan';
  if (isEvent(event, 'cancel.requested')) return event.data.by === 'user';
  return false;
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
