import type { Usage } from '../providers/types.ts';
import {
  type CallPosition,
  LogPosition,
  type StepAnswer,
  type StepPosition,
  type TurnPosition,
} from './log-position.ts';
import { isEvent, type LogEvent, type ToolOutcome } from './types.ts';

/** What a resumed tool batch does with one call of its step. */
export type ResumeCall = {
  callId: string;
  name: string;
  input: unknown;
  /**
   * `done`: its result is in the log. `lost`: it began and its outcome was lost, so it gets an `unknown`
   * result, in model order. `rejoin`: a call whose subagent waits too; it runs again and its child resumes.
   * `open`: it never began; it is checked and begun like a new call (one that was waiting for approval is
   * asked again).
   */
  state: 'done' | 'lost' | 'rejoin' | 'open';
  /** A `done` call's outcome. */
  outcome?: ToolOutcome;
  /** The decision the log holds about the call, if any: it is not logged twice. */
  decision?: CallPosition['decision'];
};

/** What someone outside is asked and has not answered yet. */
export type PendingQuestion = { callId: string; name: string; input: unknown };

/**
 * A turn stopped while its tool batch waited for the outside world: a person's approval, or a subagent
 * that itself waits. Everything before the wait is in the log, so the agent continues from here.
 */
export type WaitingPoint = {
  kind: 'waiting';
  turn: number;
  step: number;
  /** What the turn's answered requests cost before this step's answer. */
  usage: Usage;
  answer: StepAnswer;
  /** The steps right before this one in which every call named an unknown tool. */
  consecutiveUnknown: number;
  calls: ResumeCall[];
  /** The calls of this agent waiting for a decision. */
  questions: PendingQuestion[];
  /** The calls whose subagent waits, with the subagent's session and where it waits. */
  children: { callId: string; sessionId: string; point: WaitingPoint }[];
};

/**
 * A turn stopped while it rested in `waitingForAgents`: its last step ended with the model's final answer,
 * and background children it started (with `wait`) had not reported. It goes on waiting for them.
 */
export type AgentsWaitPoint = {
  kind: 'waitingForAgents';
  turn: number;
  /** The steps the turn ran, the last one ended. */
  step: number;
  /** What the turn cost so far. */
  usage: Usage;
  /** The children it started with `wait` whose result its log does not hold. */
  owed: string[];
};

/**
 * Where a resumed agent continues: `idle` (no turn was open: queued input, if any, starts the next turn),
 * `waiting` (see `WaitingPoint`), `waitingForAgents` (see `AgentsWaitPoint`), or `repair` when the open
 * turn cannot be continued — a model request or a tool was in flight and its outcome was lost — and
 * `repair()` closes it as `interrupted`.
 */
export type ResumePoint = { kind: 'idle' } | { kind: 'repair' } | WaitingPoint | AgentsWaitPoint;

/**
 * The resumable position a log ends in, from the same projection the inspector shows (`LogPosition`).
 * `children` holds the resume points of the subagent sessions that `subagentsToLoad` named; a call whose
 * child waits is part of the wait, any other call that began without a result has lost its outcome.
 */
export function resumePoint(
  events: readonly LogEvent[],
  children: ReadonlyMap<string, ResumePoint> = new Map(),
): ResumePoint {
  const turn = LogPosition.of(events).openTurn;
  if (!turn) return { kind: 'idle' };
  const step = waitingStep(turn);
  if (!step?.answer) return agentsWait(events, turn) ?? { kind: 'repair' };
  const waitingChild = (call: CallPosition): WaitingPoint | undefined => {
    const point = call.child === undefined ? undefined : children.get(call.child);
    return point?.kind === 'waiting' ? point : undefined;
  };
  const childWaits = (call: CallPosition) => waitingChild(call) !== undefined;
  const calls = step.calls.map((call) => resumeCall(call, childWaits(call)));
  const questions = step.calls
    .filter((call) => call.state === 'awaiting_approval')
    .map(({ callId, name, input }) => ({ callId, name, input }));
  const waitingChildren = step.calls.flatMap((call) => {
    const point = waitingChild(call);
    return point ? [{ callId: call.callId, sessionId: call.child!, point }] : [];
  });
  if (questions.length === 0 && waitingChildren.length === 0) return { kind: 'repair' };
  return {
    kind: 'waiting',
    turn: turn.turn,
    step: step.step,
    usage: subtractUsage(turn.usage, step.answer.usage),
    answer: step.answer,
    consecutiveUnknown: unknownStreak(turn, step, recordedToolNames(events)),
    calls,
    questions,
    children: waitingChildren,
  };
}

/**
 * The open turn as `waitingForAgents` left it, if it did: its last step ended with an answer that asked for
 * no tool, and children it started with `wait` have sent it no result. (A turn whose last answer was final
 * and that owed nobody was ending: it is repaired like any other.)
 */
function agentsWait(events: readonly LogEvent[], turn: TurnPosition): AgentsWaitPoint | undefined {
  const last = turn.steps.at(-1);
  if (last?.state !== 'done' || !last.answer || last.answer.toolCalls.length > 0) return undefined;
  const owed = owedChildren(events, turn.turn);
  if (owed.length === 0) return undefined;
  return { kind: 'waitingForAgents', turn: turn.turn, step: last.step, usage: turn.usage, owed };
}

/** The background children turn `turn` started with `wait` whose result the log has not queued. */
function owedChildren(events: readonly LogEvent[], turn: number): string[] {
  const started: string[] = [];
  const heard = new Set<string>();
  for (const event of events) {
    if (isEvent(event, 'agent.spawned') && event.turn === turn && event.data.background === true)
      if (event.data.wait !== false) started.push(event.data.childSessionId);
    if (isEvent(event, 'inbox.queued') && event.data.kind === 'result' && event.data.from !== undefined)
      heard.add(event.data.from);
  }
  return started.filter((id) => !heard.has(id));
}

/** The subagent sessions whose calls began in the open step and have no result: load these for `resumePoint`. */
export function subagentsToLoad(events: readonly LogEvent[]): string[] {
  const turn = LogPosition.of(events).openTurn;
  const step = turn && waitingStep(turn);
  if (!step) return [];
  return step.calls.flatMap((call) => (call.state === 'running' && call.child ? [call.child] : []));
}

/** The last step of the open turn, when it was running tools and every call of its answer is logged. */
function waitingStep(turn: TurnPosition): StepPosition | undefined {
  const step = turn.steps.at(-1);
  if (step?.state !== 'executing_tools' || !step.answer) return undefined;
  const logged = step.calls.map((call) => call.callId);
  const answered = step.answer.toolCalls.map((call) => call.id);
  return logged.length === answered.length && logged.every((id, i) => id === answered[i]) ? step : undefined;
}

function resumeCall(call: CallPosition, childWaits: boolean): ResumeCall {
  const { callId, name, input, decision } = call;
  const base = { callId, name, input, ...(decision ? { decision } : {}) };
  switch (call.state) {
    case 'done':
      return { callId, name, input, state: 'done', ...(call.outcome ? { outcome: call.outcome } : {}) };
    case 'running':
      return { ...base, state: childWaits ? 'rejoin' : 'lost' };
    case 'pending':
    case 'awaiting_approval':
      return { ...base, state: 'open' };
  }
}

/** The tool names `session.start` recorded: a call naming another tool named an unknown one. */
function recordedToolNames(events: readonly LogEvent[]): Set<string> {
  const start = events[0];
  if (!start || !isEvent(start, 'session.start')) return new Set();
  const tools = start.data.config.tools;
  if (!Array.isArray(tools)) return new Set();
  return new Set(
    tools.flatMap((tool: { name?: unknown }) => (typeof tool?.name === 'string' ? [tool.name] : [])),
  );
}

/** How many steps right before `current` asked only for unknown tools (the turn's `unknown_tool_limit`). */
function unknownStreak(turn: TurnPosition, current: StepPosition, known: ReadonlySet<string>): number {
  let streak = 0;
  for (const step of turn.steps.slice(0, turn.steps.indexOf(current)).reverse()) {
    const calls = step.answer?.toolCalls ?? [];
    if (calls.length === 0 || calls.some((call) => known.has(call.name))) break;
    streak++;
  }
  return streak;
}

function subtractUsage(total: Usage, part: Usage): Usage {
  return {
    inputTokens: total.inputTokens - part.inputTokens,
    outputTokens: total.outputTokens - part.outputTokens,
    cacheReadTokens: total.cacheReadTokens - part.cacheReadTokens,
    cacheWriteTokens: total.cacheWriteTokens - part.cacheWriteTokens,
  };
}

/** The calls of the running turn waiting for a decision now, in model order (what a host answers). */
export function pendingQuestions(events: readonly LogEvent[]): PendingQuestion[] {
  const step = LogPosition.of(events).openTurn?.steps.at(-1);
  return (step?.calls ?? [])
    .filter((call) => call.state === 'awaiting_approval')
    .map(({ callId, name, input }) => ({ callId, name, input }));
}

/** Every question a waiting point holds, its subagents' included, each with the session that asks it. */
export function questionsOf(
  point: WaitingPoint,
  sessionId: string,
): (PendingQuestion & { sessionId: string })[] {
  return [
    ...point.questions.map((question) => ({ ...question, sessionId })),
    ...point.children.flatMap((child) => questionsOf(child.point, child.sessionId)),
  ];
}
