import { LogPosition } from '../session/log-position.ts';
import type { ResumePoint, WaitingPoint } from '../session/resume-point.ts';
import { isEvent, type LogEvent } from '../session/types.ts';
import { compactValue } from './compact.ts';
import type { TurnView } from './protocol.ts';

const inputLimits = { maxString: 300, maxDepth: 4, maxEntries: 20 };

/**
 * Turns, steps and tool calls with their states, as the inspector shows them. They come from the session's
 * one projection of where it stands (`LogPosition`), the same that resume continues from, so a recorded
 * session and a live one are shown the same way and as resume sees them. Only the last `keepTurns` turns
 * are kept, which bounds memory for long sessions.
 */
export class TurnsView {
  private readonly position: LogPosition;

  constructor(keepTurns = 20) {
    this.position = new LogPosition(keepTurns);
  }

  /** Applies events in log order; an event already applied (by `seq`) is ignored. */
  apply(event: LogEvent): void {
    this.position.apply(event);
  }

  /** The last `count` turns (copies, arguments cut short), newest last. */
  view(count = 5): TurnView[] {
    return this.position.turns.slice(-count).map((turn) => ({
      turn: turn.turn,
      state: turn.state,
      ...(turn.reason !== undefined ? { reason: turn.reason } : {}),
      ...(turn.compactions > 0 ? { compactions: turn.compactions } : {}),
      steps: turn.steps.map((step) => ({
        step: step.step,
        state: step.state,
        attempts: step.attempts,
        calls: step.calls.map((call) => ({
          callId: call.callId,
          name: call.name,
          input: compactValue(call.input, inputLimits),
          state: call.state,
          ...(call.outcome !== undefined ? { outcome: call.outcome } : {}),
        })),
      })),
    }));
  }

  get logLength(): number {
    return this.position.logLength;
  }
}

/**
 * The lifecycle a recorded log ends in, in the agent machine's words where the log can tell, and where
 * `agentchart resume` would continue it (`point`, from `resumePoint`).
 */
export function recordedState(events: readonly LogEvent[], point: ResumePoint): string {
  const last = events.at(-1);
  if (!last) return 'empty';
  if (isEvent(last, 'session.end')) return 'disposed';
  if (point.kind === 'waiting') return `ready.running (${waitingFor(point)}; resume continues here)`;
  if (point.kind === 'waitingForAgents')
    return `ready.running (waiting for agents ${point.owed.join(', ')}; resume continues here)`;
  return point.kind === 'repair' ? 'ready.running (the log ends mid-turn)' : 'ready.idle';
}

function waitingFor(point: WaitingPoint): string {
  const questions = point.questions.map((question) => `${question.name} ${question.callId}`);
  const children = point.children.map((child) => `subagent ${child.sessionId}`);
  return [
    ...(questions.length > 0 ? [`waiting for approval of ${questions.join(', ')}`] : []),
    ...(children.length > 0 ? [`waiting on ${children.join(', ')}`] : []),
  ].join('; ');
}

/** The parent agent recorded in `session.start`, if any. */
export function parentOf(events: readonly LogEvent[]): string | undefined {
  const start = events[0];
  return start && isEvent(start, 'session.start') ? start.data.parent : undefined;
}
