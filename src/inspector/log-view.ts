import { isEvent, type LogEvent } from '../session/types.ts';
import { compactValue } from './compact.ts';
import type { StepView, ToolCallView, TurnView } from './protocol.ts';

const inputLimits = { maxString: 300, maxDepth: 4, maxEntries: 20 };

/**
 * Turns, steps and tool calls with their states, derived from a session log one event at a time. The log
 * is the source of truth, so a recorded session and a live one are shown the same way. Only the last
 * `keepTurns` turns are kept, which bounds memory for long sessions.
 */
export class TurnsView {
  private readonly turns: TurnView[] = [];
  private length = 0;

  constructor(private readonly keepTurns = 20) {}

  /** Applies events in log order; an event already applied (by `seq`) is ignored. */
  apply(event: LogEvent): void {
    if (event.seq < this.length) return;
    this.length = event.seq + 1;
    if (isEvent(event, 'turn.start')) {
      this.turns.push({ turn: event.turn ?? 0, state: 'running', steps: [] });
      if (this.turns.length > this.keepTurns) this.turns.shift();
      return;
    }
    const turn = this.turns.findLast((candidate) => candidate.turn === event.turn);
    if (!turn) return;
    if (isEvent(event, 'turn.end')) {
      turn.state = 'ended';
      turn.reason = event.data.reason;
      for (const step of turn.steps) step.state = 'done';
      return;
    }
    if (isEvent(event, 'compaction')) {
      turn.compactions = (turn.compactions ?? 0) + 1;
      return;
    }
    if (isEvent(event, 'step.start')) {
      turn.steps.push({ step: event.step ?? 0, state: 'requesting', attempts: 0, calls: [] });
      return;
    }
    const step = turn.steps.findLast((candidate) => candidate.step === event.step);
    if (step) applyToStep(step, event);
  }

  /** The last `count` turns (copies), newest last. */
  view(count = 5): TurnView[] {
    return structuredClone(this.turns.slice(-count));
  }

  get logLength(): number {
    return this.length;
  }
}

function applyToStep(step: StepView, event: LogEvent): void {
  if (isEvent(event, 'assistant.attempt')) {
    step.state = 'retrying';
    step.attempts = event.data.attempt;
  } else if (isEvent(event, 'assistant.message')) {
    step.state = event.data.toolCalls.length > 0 ? 'executing_tools' : 'requesting';
  } else if (isEvent(event, 'step.end')) {
    step.state = 'done';
  } else if (isEvent(event, 'tool.call')) {
    const { callId, name, input } = event.data;
    step.calls.push({ callId, name, input: compactValue(input, inputLimits), state: 'pending' });
  } else if (isEvent(event, 'approval.asked')) {
    setCall(step, event.data.callId, { state: 'awaiting_approval' });
  } else if (isEvent(event, 'tool.started')) {
    setCall(step, event.data.callId, { state: 'running' });
  } else if (isEvent(event, 'tool.result')) {
    setCall(step, event.data.callId, { state: 'done', outcome: event.data.outcome });
  }
}

function setCall(step: StepView, callId: string, change: Partial<ToolCallView>): void {
  const call = step.calls.find((candidate) => candidate.callId === callId);
  if (call) Object.assign(call, change);
}

/** The lifecycle a recorded log ends in, in the agent machine's words where the log can tell. */
export function recordedState(events: readonly LogEvent[]): string {
  const last = events.at(-1);
  if (!last) return 'empty';
  if (isEvent(last, 'session.end')) return 'disposed';
  const open = events.findLast((event) => isEvent(event, 'turn.start') || isEvent(event, 'turn.end'));
  return open && isEvent(open, 'turn.start') ? 'ready.running (the log ends mid-turn)' : 'ready.idle';
}

/** The parent agent recorded in `session.start`, if any. */
export function parentOf(events: readonly LogEvent[]): string | undefined {
  const start = events[0];
  return start && isEvent(start, 'session.start') ? start.data.parent : undefined;
}
