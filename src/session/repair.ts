import { addUsage, emptyUsage, type ToolCallRequest, type Usage } from '../providers/types.ts';
import {
  isEvent,
  LOG_FORMAT_VERSION,
  type LogEvent,
  type LogEventData,
  type LogEventType,
  type ToolOutcome,
} from './types.ts';

/** What the model reads for a call that was planned but never began running. */
export const notStartedContent =
  'This tool call was never run: the session stopped (crash or kill) before it started, so it had no ' +
  'effect. Call it again if it is still needed.';

/** What the model reads for a call that began running but whose outcome was lost. */
export const unknownOutcomeContent =
  'The outcome of this tool call is unknown: it started, but the session crashed before its result was ' +
  'recorded, so it may or may not have taken effect. Check the current state (for example read the ' +
  'file or list the directory) before trying again; never repeat it blindly.';

export type RepairResult = { appended: LogEvent[]; notes: string[] };

type Position = { turn?: number; step?: number };
type Call = {
  request: ToolCallRequest;
  at: Position;
  logged: boolean;
  started: boolean;
  settled: boolean;
};
type Scan = {
  calls: Call[];
  openTurn?: Position & { usage: Usage };
  openStep?: Position & { results: number };
};

/**
 * The events to append (never rewrite) so a log cut short by a crash is consistent again:
 * every tool call gets exactly one result (`not_started` when it never began, `unknown` when it began
 * and its outcome was lost), missing `tool.call` events are written before their results, an open
 * step gets `step.end` and an open turn `turn.end{reason:'interrupted'}`. Appended events continue the
 * seq, take `ts` from `clock`, and carry the turn/step of the call or open step/turn they close.
 * Repairing a consistent log appends nothing.
 */
export function repair(events: readonly LogEvent[], clock: { now(): number }): RepairResult {
  const scan = scanLog(events);
  const appended: LogEvent[] = [];
  const notes: string[] = [];
  let seq = (events[events.length - 1]?.seq ?? -1) + 1;
  const push = <K extends LogEventType>(type: K, at: Position, data: LogEventData[K]) => {
    appended.push({ v: LOG_FORMAT_VERSION, seq: seq++, ts: clock.now(), type, ...at, data });
  };
  for (const call of scan.calls) {
    if (call.settled) continue;
    const { id, name, input } = call.request;
    if (!call.logged) push('tool.call', call.at, { callId: id, name, input });
    const outcome: ToolOutcome = call.started ? 'unknown' : 'not_started';
    const content = call.started ? unknownOutcomeContent : notStartedContent;
    push('tool.result', call.at, { callId: id, outcome, content });
    if (scan.openStep && sameStep(scan.openStep, call.at)) scan.openStep.results++;
    notes.push(`tool call ${id} (${name}) had no result: recorded as ${outcome}`);
  }
  if (scan.openStep) {
    const { turn, step, results } = scan.openStep;
    push('step.end', position(turn, step), { toolResults: results });
    notes.push(`closed open step ${step ?? '?'} of turn ${turn ?? '?'}`);
  }
  if (scan.openTurn) {
    const { turn, usage } = scan.openTurn;
    push('turn.end', position(turn, undefined), { reason: 'interrupted', usage });
    notes.push(`closed open turn ${turn ?? '?'} as interrupted`);
  }
  return { appended, notes };
}

function position(turn: number | undefined, step: number | undefined): Position {
  const at: Position = {};
  if (turn !== undefined) at.turn = turn;
  if (step !== undefined) at.step = step;
  return at;
}

function sameStep(a: Position, b: Position): boolean {
  return a.turn === b.turn && a.step === b.step;
}

/** One pass over the log: the calls in model order with what happened to each, and what is still open. */
function scanLog(events: readonly LogEvent[]): Scan {
  const scan: Scan = { calls: [] };
  // The latest call per id: ids may repeat across steps, and later events refer to the latest one.
  const byId = new Map<string, Call>();
  const track = (request: ToolCallRequest, event: LogEvent, logged: boolean) => {
    const call: Call = {
      request,
      at: position(event.turn, event.step),
      logged,
      started: false,
      settled: false,
    };
    scan.calls.push(call);
    byId.set(request.id, call);
    return call;
  };
  for (const event of events) {
    if (isEvent(event, 'turn.start')) {
      scan.openTurn = { ...position(event.turn, undefined), usage: { ...emptyUsage } };
    } else if (isEvent(event, 'step.start')) {
      scan.openStep = { ...position(event.turn, event.step), results: 0 };
    } else if (isEvent(event, 'assistant.message')) {
      if (scan.openTurn) scan.openTurn.usage = addUsage(scan.openTurn.usage, event.data.usage);
      // An interrupted message's half-built calls are not shown to the model, so they need no result.
      if (!event.data.interrupted) for (const call of event.data.toolCalls) track(call, event, false);
    } else if (isEvent(event, 'tool.call')) {
      const { callId, name, input } = event.data;
      const call = byId.get(callId);
      if (call && !call.logged) call.logged = true;
      else track({ id: callId, name, input }, event, true);
    } else if (isEvent(event, 'tool.started')) {
      const call = byId.get(event.data.callId);
      if (call) call.started = true;
    } else if (isEvent(event, 'tool.result')) {
      const call = byId.get(event.data.callId);
      if (call) call.settled = true;
      if (scan.openStep) scan.openStep.results++;
    } else if (isEvent(event, 'step.end')) {
      scan.openStep = undefined;
    } else if (isEvent(event, 'turn.end')) {
      scan.openTurn = undefined;
      scan.openStep = undefined;
    }
  }
  return scan;
}

/** The number of the next turn: one more than the highest `turn` in the log, or 1 for a fresh log. */
export function nextTurnNumber(events: readonly LogEvent[]): number {
  let highest = 0;
  for (const event of events) if (event.turn !== undefined && event.turn > highest) highest = event.turn;
  return highest + 1;
}

export type PendingInboxItem = LogEventData['inbox.queued'] & { seq: number };

/** Queued inbox items not yet claimed or cleared, in queue order: what a resumed agent still owes. */
export function pendingInbox(events: readonly LogEvent[]): PendingInboxItem[] {
  const done = new Set<string>();
  for (const event of events) {
    if (isEvent(event, 'inbox.claimed') || isEvent(event, 'inbox.cleared')) {
      for (const id of event.data.ids) done.add(id);
    }
  }
  const pending: PendingInboxItem[] = [];
  for (const event of events) {
    if (isEvent(event, 'inbox.queued') && !done.has(event.data.id)) {
      const { id, channel, message, from, kind, output } = event.data;
      const mail = { ...(from !== undefined ? { from } : {}), ...(kind !== undefined ? { kind } : {}) };
      pending.push({ id, channel, message, ...mail, ...(output ? { output } : {}), seq: event.seq });
    }
  }
  return pending;
}
