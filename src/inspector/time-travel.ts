import { messageOf } from '../errors/describe-value.ts';
import { replaySession } from '../replay/replay-session.ts';
import { type ReplayOptions, replaySetup } from '../replay/replay-tools.ts';
import type { Agent } from '../runtime/agent-handle.ts';
import type { ActorSnapshot } from '../runtime/agent-view.ts';
import type { LogEvent } from '../session/types.ts';
import { compactValue } from './compact.ts';

/** Every machine's state, with a short form of its context, as one frame of time travel. */
export type MachineFrame = {
  id: string;
  value: unknown;
  status: string;
  context?: unknown;
  children: MachineFrame[];
};

/** The answer for one seq: the machines then, or why they cannot be shown. */
export type TravelAnswer = { seq: number; frame?: MachineFrame; computedUpTo: number; note?: string };

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
  try {
    const run = await replaySession(events, {
      setup: await replaySetup(events, options),
      onEvent: (event: LogEvent, agent: Agent) => {
        if (event.seq < events.length) frames[event.seq] = frameOf(agent);
      },
    });
    const diverged = events.findIndex((event, seq) => !sameStep(event, run.events[seq]));
    if (diverged !== -1) {
      frames.length = diverged;
      return {
        frames,
        note: `the re-run went another way at seq ${diverged}${run.stopped ? ` (${run.stopped})` : ''}`,
      };
    }
    return { frames };
  } catch (error) {
    return { frames: [], note: `time travel is not available for this session: ${messageOf(error)}` };
  }
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

  async at(sessionId: string, events: readonly LogEvent[], seq: number): Promise<TravelAnswer> {
    let entry = this.cache.get(sessionId);
    if (!entry || entry.length !== events.length) {
      entry = { length: events.length, frames: computeFrames([...events]) };
      this.cache.set(sessionId, entry);
    }
    const { frames, note } = await entry.frames;
    const frame = frames[seq];
    return { seq, ...(frame ? { frame } : {}), computedUpTo: frames.length - 1, ...(note ? { note } : {}) };
  }
}
