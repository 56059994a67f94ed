import {
  addUsage,
  emptyUsage,
  type ModelStopReason,
  type ToolCallRequest,
  type Usage,
} from '../providers/types.ts';
import { isEvent, type LogEvent, type LogEventData, type StopReason, type ToolOutcome } from './types.ts';

/** Where a tool call stands: from `tool.call` to its one `tool.result`. */
export type CallState = 'pending' | 'awaiting_approval' | 'running' | 'done';

/** One tool call of a step, as far as the log tells. */
export type CallPosition = {
  callId: string;
  name: string;
  /** The arguments as the model sent them (the log's own value, not a copy). */
  input: unknown;
  state: CallState;
  outcome?: ToolOutcome;
  /** The last decision about the call (by a rule, the mode, the session, a host or a person). */
  decision?: Pick<LogEventData['approval.decided'], 'outcome' | 'by' | 'reason'>;
  /** The subagent session the call started (`agent.spawned`), for a `task` call. */
  child?: string;
};

/** The model's answer a step received (`assistant.message`). */
export type StepAnswer = {
  toolCalls: ToolCallRequest[];
  usage: Usage;
  stopReason: ModelStopReason | 'interrupted';
};

/** One step of a turn, as far as the log tells. */
export type StepPosition = {
  step: number;
  state: 'requesting' | 'retrying' | 'executing_tools' | 'done';
  /** Failed attempts so far. */
  attempts: number;
  answer?: StepAnswer;
  calls: CallPosition[];
};

/** One turn, as far as the log tells. */
export type TurnPosition = {
  turn: number;
  state: 'running' | 'ended';
  reason?: StopReason;
  /** What the turn's answered requests cost so far (steps and compactions). */
  usage: Usage;
  /** Compactions logged in this turn (automatic, asked for, or after an overflow). */
  compactions: number;
  steps: StepPosition[];
};

/**
 * Where a session stands: its turns, their steps and each tool call's state, folded from the log one event
 * at a time. The log is the source of truth, so this one projection serves everything that asks where a
 * session is — the inspector (live and recorded) and resume (`resumePoint`) — and none of them reads the
 * last events its own way. Only the last `keepTurns` turns are kept, which bounds memory for long sessions.
 * The positions hold the log's own values (inputs, answers): callers must not change them.
 */
export class LogPosition {
  private readonly kept: TurnPosition[] = [];
  private length = 0;

  constructor(private readonly keepTurns = Number.POSITIVE_INFINITY) {}

  /** The position a whole log ends in. */
  static of(events: readonly LogEvent[]): LogPosition {
    const position = new LogPosition();
    for (const event of events) position.apply(event);
    return position;
  }

  /** Applies events in log order; an event already applied (by `seq`) is ignored. */
  apply(event: LogEvent): void {
    if (event.seq < this.length) return;
    this.length = event.seq + 1;
    if (isEvent(event, 'turn.start')) {
      this.kept.push({
        turn: event.turn ?? 0,
        state: 'running',
        usage: emptyUsage,
        compactions: 0,
        steps: [],
      });
      if (this.kept.length > this.keepTurns) this.kept.shift();
      return;
    }
    const turn = this.kept.findLast((candidate) => candidate.turn === event.turn);
    if (!turn) return;
    if (isEvent(event, 'turn.end')) {
      turn.state = 'ended';
      turn.reason = event.data.reason;
      for (const step of turn.steps) step.state = 'done';
      return;
    }
    if (isEvent(event, 'step.start')) {
      turn.steps.push({ step: event.step ?? 0, state: 'requesting', attempts: 0, calls: [] });
      return;
    }
    if (isEvent(event, 'compaction')) turn.compactions++;
    if (isEvent(event, 'assistant.message') || isEvent(event, 'compaction')) {
      if (event.data.usage) turn.usage = addUsage(turn.usage, event.data.usage);
    }
    const step = turn.steps.findLast((candidate) => candidate.step === event.step);
    if (step) applyToStep(step, event);
  }

  /** The turns kept, oldest first. */
  get turns(): readonly TurnPosition[] {
    return this.kept;
  }

  /** The turn still running when the log ends, if any. */
  get openTurn(): TurnPosition | undefined {
    const last = this.kept.at(-1);
    return last?.state === 'running' ? last : undefined;
  }

  /** How many events have been applied (the next expected `seq`). */
  get logLength(): number {
    return this.length;
  }
}

function applyToStep(step: StepPosition, event: LogEvent): void {
  if (isEvent(event, 'assistant.attempt')) {
    // The last attempt (no retry) is followed by step.end, which settles the step.
    if (event.data.retryInMs !== undefined) step.state = 'retrying';
    step.attempts = event.data.attempt;
  } else if (isEvent(event, 'assistant.message')) {
    const { toolCalls, usage, stopReason } = event.data;
    step.answer = { toolCalls, usage, stopReason };
    step.state = toolCalls.length > 0 ? 'executing_tools' : 'requesting';
  } else if (isEvent(event, 'step.end')) {
    step.state = 'done';
  } else if (isEvent(event, 'tool.call')) {
    const { callId, name, input } = event.data;
    step.calls.push({ callId, name, input, state: 'pending' });
  } else if (isEvent(event, 'approval.asked')) {
    setCall(step, event.data.callId, { state: 'awaiting_approval' });
  } else if (isEvent(event, 'approval.decided')) {
    const { outcome, by, reason } = event.data;
    const decision = { outcome, by, ...(reason !== undefined ? { reason } : {}) };
    const call = findCall(step, event.data.callId);
    // A person's answer ends the wait; a check's decision comes before the call began.
    if (call)
      Object.assign(call, { decision, ...(call.state === 'awaiting_approval' ? { state: 'pending' } : {}) });
  } else if (isEvent(event, 'tool.started')) {
    setCall(step, event.data.callId, { state: 'running' });
  } else if (isEvent(event, 'agent.spawned')) {
    setCall(step, event.data.callId, { child: event.data.childSessionId });
  } else if (isEvent(event, 'tool.result')) {
    setCall(step, event.data.callId, { state: 'done', outcome: event.data.outcome });
  }
}

function findCall(step: StepPosition, callId: string): CallPosition | undefined {
  return step.calls.findLast((candidate) => candidate.callId === callId);
}

function setCall(step: StepPosition, callId: string, change: Partial<CallPosition>): void {
  const call = findCall(step, callId);
  if (call) Object.assign(call, change);
}
