import { type CallPosition, type CallState, LogPosition } from '../session/log-position.ts';
import { isEvent, type LogEvent, type StopReason, type ToolOutcome } from '../session/types.ts';

/** One tool call of the step a seq falls in, as the log tells it. */
export type TravelCall = {
  callId: string;
  name: string;
  state: CallState;
  outcome?: ToolOutcome;
  /** `allow by mode`, `deny by headless: …`: the last decision the log holds for the call. */
  decision?: string;
};

/**
 * Where a session stands after one seq, derived from the log alone (`LogPosition`, the projection resume
 * uses): what the page shows in place of the charts where the re-run has no frame for that seq.
 */
export type TravelPosition = {
  /** The event at that seq. */
  event: { type: string; turn?: number; step?: number };
  /** The turn the seq falls in (the last one, when the seq is between turns). */
  turn?: { turn: number; state: 'running' | 'ended'; reason?: StopReason };
  step?: { step: number; state: 'requesting' | 'retrying' | 'executing_tools' | 'done'; attempts: number };
  /** The calls of that step. */
  calls: TravelCall[];
  /** The calls that wait for a person's approval at that seq. */
  awaitingApproval: string[];
  /** The log holds `session.end` at or before that seq. */
  ended: boolean;
};

/**
 * The position after event `seq` of `events` (0 ≤ seq < events.length), folded from the log's first event;
 * no re-run, so it exists for any recording the inspector could read.
 */
export function travelPosition(events: readonly LogEvent[], seq: number): TravelPosition {
  const position = new LogPosition();
  let ended = false;
  for (const event of events.slice(0, seq + 1)) {
    position.apply(event);
    if (isEvent(event, 'session.end')) ended = true;
  }
  const at = events[seq]!;
  const turn = position.turns.at(-1);
  const step = turn?.steps.at(-1);
  const calls = (step?.calls ?? []).map(travelCall);
  return {
    event: {
      type: at.type,
      ...(at.turn !== undefined ? { turn: at.turn } : {}),
      ...(at.step !== undefined ? { step: at.step } : {}),
    },
    ...(turn
      ? {
          turn: {
            turn: turn.turn,
            state: turn.state,
            ...(turn.reason !== undefined ? { reason: turn.reason } : {}),
          },
        }
      : {}),
    ...(step ? { step: { step: step.step, state: step.state, attempts: step.attempts } } : {}),
    calls,
    awaitingApproval: calls.filter((call) => call.state === 'awaiting_approval').map((call) => call.callId),
    ended,
  };
}

// A hook's or a person's reason can be long; the page shows one line per call.
const maxReason = 200;

function travelCall(call: CallPosition): TravelCall {
  const { decision } = call;
  return {
    callId: call.callId,
    name: call.name,
    state: call.state,
    ...(call.outcome !== undefined ? { outcome: call.outcome } : {}),
    ...(decision
      ? {
          decision: `${decision.outcome} by ${decision.by}${decision.reason !== undefined ? `: ${decision.reason.slice(0, maxReason)}` : ''}`,
        }
      : {}),
  };
}
