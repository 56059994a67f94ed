import { messageOf } from '../errors/describe-value.ts';
import { replaySession } from '../replay/replay-session.ts';
import { type ReplayOptions, replaySetup } from '../replay/replay-tools.ts';
import type { Agent } from '../runtime/agent-handle.ts';
import type { ActorSnapshot } from '../runtime/agent-view.ts';
import { divergenceReason } from '../session/divergence-reason.ts';
import type { LogEvent } from '../session/types.ts';
import { compactValue } from './compact.ts';
import { type TravelPosition, travelPosition } from './travel-position.ts';

/** Every machine's state, with a short form of its context, as one frame of time travel. */
export type MachineFrame = {
  id: string;
  value: unknown;
  status: string;
  context?: unknown;
  children: MachineFrame[];
};

/**
 * The answer for one seq: the machines then, or why they cannot be shown (`note`) with where the log
 * stands there (`position`). Every answer without a frame carries a note (and, for a seq inside the log, the
 * position), so the page never waits for a frame that will not come.
 */
export type TravelAnswer = {
  seq: number;
  frame?: MachineFrame;
  /** The last seq with a frame; -1 when the re-run gave none. */
  computedUpTo: number;
  /** Why the re-run gives no frame for some seqs (it went another way, or it could not start). */
  note?: string;
  /** Where the log stands after `seq`, derived from the log alone: present whenever `frame` is absent. */
  position?: TravelPosition;
};

type Frames = { frames: (MachineFrame | undefined)[]; note?: string };

const contextLimits = { maxString: 160, maxDepth: 3, maxEntries: 16 };

/**
 * Time travel: the state of every machine after each event of a session log, computed — not guessed —
 * by re-running the log through the real runtime with the replay provider (the recorded answers, ids,
 * clock and inputs) with recorded tools (every result from the log, no tool runs), and taking the agent's
 * actor tree once the runtime has taken the step that wrote each event. Where the re-run writes an event
 * of another type than the recording, the frames stop there and `note` says why. `setup` adds what the log
 * does not record (a separate summarising model, say; the compaction policy itself is in `session.start`).
 */
export async function computeFrames(
  events: readonly LogEvent[],
  options: ReplayOptions = {},
): Promise<Frames> {
  const frames: (MachineFrame | undefined)[] = [];
  let unreadable: string | undefined;
  try {
    const run = await replaySession(events, {
      setup: await replaySetup(events, options),
      onEvent: (event: LogEvent, agent: Agent) => {
        if (event.seq >= events.length) return;
        // Called in a microtask of the runtime's: a throw here would escape every caller.
        try {
          frames[event.seq] = frameOf(agent);
        } catch (error) {
          unreadable ??= `the machines could not be read at seq ${event.seq}: ${messageOf(error)}`;
        }
      },
    });
    const diverged = events.findIndex((event, seq) => !sameStep(event, run.events[seq]));
    if (diverged !== -1) {
      frames.length = diverged;
      return { frames, note: divergenceNote(events, diverged, run.events[diverged], run.stopped) };
    }
    return { frames, ...(unreadable ? { note: unreadable } : {}) };
  } catch (error) {
    return { frames: [], note: `time travel is not available for this session: ${messageOf(error)}` };
  }
}

/** Where the re-run left the recording, and why, in the words of the replay check's report. */
function divergenceNote(
  events: readonly LogEvent[],
  seq: number,
  replayed: LogEvent | undefined,
  stopped: string | undefined,
): string {
  const recorded = events[seq]!;
  const place = (event: LogEvent) =>
    event.turn === undefined
      ? 'outside a turn'
      : `turn ${event.turn}${event.step !== undefined ? ` step ${event.step}` : ''}`;
  const why =
    replayed?.type === recorded.type
      ? `the re-run wrote it in ${place(replayed)}, the recording in ${place(recorded)}`
      : divergenceReason({
          recorded: events,
          expected: recorded,
          actual: replayed,
          changes: [],
          ...(stopped !== undefined ? { stopped } : {}),
        });
  const also = replayed && stopped !== undefined ? ` (${stopped})` : '';
  return `the re-run went another way at seq ${seq} (${recorded.type}): ${why}${also}`;
}

/** Same kind of event at the same place (the text of a result may differ with stand-in tools). */
function sameStep(recorded: LogEvent, replayed: LogEvent | undefined): boolean {
  return (
    replayed !== undefined &&
    recorded.type === replayed.type &&
    recorded.turn === replayed.turn &&
    recorded.step === replayed.step
  );
}

function frameOf(agent: Agent): MachineFrame {
  const contexts = agent.machineContexts();
  const walk = (node: ActorSnapshot, path: string): MachineFrame => ({
    id: node.id,
    value: compactValue(node.value, contextLimits),
    status: node.status,
    ...(contexts.has(path) ? { context: compactValue(contexts.get(path), contextLimits) } : {}),
    children: node.children.map((child) => walk(child, path ? `${path}/${child.id}` : child.id)),
  });
  const { contextUsage: _usage, ...tree } = agent.snapshot();
  return walk(tree, '');
}

/** Frames per session, computed once per log length (a live log that grew is computed again). */
export class TimeTravel {
  private readonly cache = new Map<string, { length: number; frames: Promise<Frames> }>();

  /** Never rejects: whatever fails is the answer's `note`. */
  async at(sessionId: string, events: readonly LogEvent[], seq: number): Promise<TravelAnswer> {
    if (seq >= events.length)
      return {
        seq,
        computedUpTo: -1,
        note: `seq ${seq} is past the end of the log (${events.length} events)`,
      };
    let entry = this.cache.get(sessionId);
    if (!entry || entry.length !== events.length) {
      entry = { length: events.length, frames: computeFrames([...events]) };
      this.cache.set(sessionId, entry);
    }
    const { frames, note } = await entry.frames.catch(
      (error: unknown): Frames => ({ frames: [], note: `time travel failed: ${messageOf(error)}` }),
    );
    const frame = frames[seq];
    const computedUpTo = frames.length - 1;
    if (frame) return { seq, frame, computedUpTo, ...(note ? { note } : {}) };
    return {
      seq,
      computedUpTo,
      note: note ?? `the re-run gave no state for seq ${seq}`,
      position: travelPosition(events, seq),
    };
  }
}
