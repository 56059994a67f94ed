// What `agent.run()` resolves with, read from the log: how the turn ended, its last text, its cost, why it
// did not complete (`error`) and which calls were denied in it and why (`denied`). Nothing here is kept
// beside the log: a resumed agent's `whenTurnEnds` reads the same from what an earlier process wrote.
import type { ProviderErrorData, ProviderErrorKind } from '../errors/provider-error.ts';
import { estimateCost, recordedPrices } from '../providers/prices.ts';
import { emptyUsage, type Usage } from '../providers/types.ts';
import { finalAnswerOf, parseAnswer } from '../session/typed-turns.ts';
import { isEvent, type LogEvent, type LogEventData, type StopReason } from '../session/types.ts';

/**
 * Why a turn did not complete: a model failure by its provider error kind (`rate_limit`, `auth`,
 * `bad_response`, …), or the stop reason itself for a limit, a hook's block or a crash.
 */
export type RunErrorKind = ProviderErrorKind | Exclude<StopReason, 'completed' | 'canceled' | 'model_error'>;

/**
 * What stopped a turn that did not complete. `retryable`: the same input may succeed if sent again later
 * unchanged (a rate limit, an overloaded server, a crash); not for a limit, a block or a refused request.
 */
export type RunError = {
  kind: RunErrorKind;
  message: string;
  retryable: boolean;
  /** The HTTP status of the failed model request, when there was one. */
  status?: number;
  /** How long the provider asked to wait before trying again. */
  retryAfterMs?: number;
};

/**
 * A call that was denied in the turn. `by`: a permission `rule`, the permission `mode`, a `session`
 * decision, the host's approver (`host`), a person (`user`), nobody who could approve (`headless`: the
 * system has no approver), or a `preTool` `hook` (named in `hook`).
 */
export type DeniedCall = {
  callId: string;
  tool: string;
  input: unknown;
  by: LogEventData['approval.decided']['by'] | 'hook';
  reason: string;
  hook?: string;
};

/**
 * What `agent.run()` (and `whenTurnEnds`) resolves with: how the turn that answered ended (`reason`), the
 * last text the model gave in it, what it cost, and its number. `error` is there exactly when the turn
 * neither completed nor was cancelled (a cancel is the host's own doing, told by `reason: 'canceled'`).
 * `denied` lists the calls of the turn that were denied, in the order they were decided (empty when none).
 *
 * A typed run (`run(prompt, { output: schema })`) that completed has `output`: the final answer, parsed
 * and validated by the schema, typed by it (`z.infer<typeof schema>` for zod); a turn that did not
 * complete has none (`reason: 'invalid_output'` when the answer never passed its check).
 *
 * @example
 * const result = await agent.run('Fix the failing test');
 * if (result.error) console.error(`${result.error.kind}: ${result.error.message}`);
 * for (const call of result.denied) console.warn(`${call.tool} denied by ${call.by}: ${call.reason}`);
 */
export type RunResult<Output = unknown> = CompletedRun<Output> | StoppedRun;

/** A `RunResult` whose turn completed: for a typed run, `output` is the answer its schema gave. */
export type CompletedRun<Output = unknown> = RunResultFields & {
  reason: 'completed';
  /** The final answer, parsed and validated by the run's `output` schema (absent for a free-text run). */
  output: Output;
};

/** A `RunResult` whose turn did not complete (`error` says why, unless it was cancelled): no `output`. */
export type StoppedRun = RunResultFields & { reason: Exclude<StopReason, 'completed'>; output?: undefined };

/** What every `RunResult` has, however its turn ended. */
export type RunResultFields = {
  text: string;
  /** The turn's tokens: input apart from the cache, cache writes, cache reads, output. */
  usage: Usage;
  turn: number;
  /**
   * The turn's estimated price in US dollars, from the prices `session.start` recorded; absent when the
   * model's prices are unknown (tokens only, never a guess).
   */
  costUsd?: number;
  error?: RunError;
  denied: DeniedCall[];
};

/** The result of the turn that `end` closed, from the events of that turn. */
export function turnResult(events: readonly LogEvent[], end: LogEvent & { type: 'turn.end' }): RunResult {
  const turn = eventsOfTurn(events, end);
  const data = end.data as LogEventData['turn.end'];
  const text = turn.findLast((event) => isEvent(event, 'assistant.message'))?.data.text;
  const error = runError(turn, data);
  const usage = data.usage ?? emptyUsage;
  const start = events[0];
  const prices = start && isEvent(start, 'session.start') ? recordedPrices(start.data.config) : undefined;
  const output = data.reason === 'completed' ? acceptedOutput(turn, end.turn ?? 0) : undefined;
  return {
    reason: data.reason,
    text: typeof text === 'string' ? text : '',
    usage,
    turn: end.turn ?? 0,
    ...(prices ? { costUsd: estimateCost(usage, prices) } : {}),
    ...(error !== undefined ? { error } : {}),
    denied: deniedCalls(turn),
    ...output,
  } as RunResult;
}

/**
 * A typed turn's output as the log holds it: the final answer's JSON, when its last check passed. (A live
 * run gives the value its schema returned instead; this is what a resumed agent's `whenTurnEnds` reads.)
 */
function acceptedOutput(turn: readonly LogEvent[], number: number): { output: unknown } | undefined {
  const check = turn.findLast((event) => isEvent(event, 'output.checked'));
  if (!check || !isEvent(check, 'output.checked') || !check.data.valid) return undefined;
  const parsed = parseAnswer(finalAnswerOf(turn, number) ?? '');
  return parsed.ok ? { output: parsed.value } : undefined;
}

/** The events of `end`'s turn, up to `end`: back to its `turn.start` (events of no turn included). */
function eventsOfTurn(events: readonly LogEvent[], end: LogEvent): LogEvent[] {
  const last = events.lastIndexOf(end);
  let first = last;
  while (first > 0) {
    const event = events[first - 1]!;
    if (event.turn !== undefined && event.turn !== end.turn) break;
    first--;
    if (isEvent(event, 'turn.start')) break;
  }
  return events.slice(first, last);
}

function runError(turn: readonly LogEvent[], data: LogEventData['turn.end']): RunError | undefined {
  switch (data.reason) {
    case 'completed':
    case 'canceled':
      return undefined;
    case 'model_error':
      return modelError(data.error ?? lastAttemptError(turn));
    case 'max_steps': {
      const steps = turn.filter((event) => isEvent(event, 'step.start')).length;
      return stopped('max_steps', `the turn reached its step limit (limits.maxSteps) after ${steps} steps`);
    }
    case 'unknown_tool_limit':
      return stopped(
        'unknown_tool_limit',
        'the model kept calling tools that do not exist (limits.maxUnknownToolCalls steps in a row)',
      );
    case 'max_tokens':
      return stopped('max_tokens', "the model's answer was cut off at its output token limit (maxTokens)");
    case 'blocked':
      return stopped('blocked', `a hook blocked the turn: ${data.vetoReason ?? 'no reason given'}`);
    case 'interrupted':
      return {
        kind: 'interrupted',
        message: 'the process stopped before the turn ended; resuming the session closed it',
        retryable: true,
      };
    case 'invalid_output':
      return invalidOutput(turn);
  }
}

/** Why a typed turn's answers never passed their check: how many failed, and what the last one lacked. */
function invalidOutput(turn: readonly LogEvent[]): RunError {
  const failed = turn.filter((event) => isEvent(event, 'output.checked') && event.data.valid === false);
  const last = failed.at(-1);
  const why = last && isEvent(last, 'output.checked') ? last.data.error : undefined;
  return stopped(
    'invalid_output',
    `the model's final answer failed its output check ${failed.length} times, the retries allowed ` +
      `(maxOutputRetries: ${Math.max(0, failed.length - 1)}) included; the last check said: ` +
      `${why ?? 'it does not match the output schema'}`,
  );
}

function stopped(kind: RunErrorKind, message: string): RunError {
  return { kind, message, retryable: false };
}

function modelError(error: ProviderErrorData | undefined): RunError {
  if (error === undefined)
    return {
      kind: 'server',
      message: 'the model request failed (the log records no error)',
      retryable: false,
    };
  const { kind, message, retryable, status, retryAfterMs } = error;
  return {
    kind,
    message,
    retryable,
    ...(status !== undefined ? { status } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
}

function lastAttemptError(turn: readonly LogEvent[]): ProviderErrorData | undefined {
  const attempt = turn.findLast((event) => isEvent(event, 'assistant.attempt'));
  return attempt && isEvent(attempt, 'assistant.attempt') ? attempt.data.error : undefined;
}

/** A `preTool` hook outcome that denies the call it was about (its failures deny at that point). */
const denyingHookOutcomes = new Set(['deny', 'error', 'timeout', 'invalid']);

/**
 * Every call of the turn whose result is `denied`, with who denied it: the last denying decision logged
 * for it (`approval.decided`, or a `preTool` hook's `hook.decided`), else what its result says.
 */
function deniedCalls(turn: readonly LogEvent[]): DeniedCall[] {
  const calls = new Map<string, { tool: string; input: unknown }>();
  const decisions = new Map<string, Pick<DeniedCall, 'by' | 'reason' | 'hook'>>();
  const denied: DeniedCall[] = [];
  for (const event of turn) {
    if (isEvent(event, 'tool.call')) {
      calls.set(event.data.callId, { tool: event.data.name, input: event.data.input });
    } else if (isEvent(event, 'approval.decided') && event.data.outcome === 'deny') {
      const { callId, by, reason } = event.data;
      decisions.set(callId, { by, reason: reason ?? 'denied' });
    } else if (
      isEvent(event, 'hook.decided') &&
      event.data.point === 'preTool' &&
      event.data.callId !== undefined &&
      denyingHookOutcomes.has(event.data.outcome)
    ) {
      const { callId, hook, outcome, reason } = event.data;
      decisions.set(callId, { by: 'hook', hook, reason: reason ?? `the hook answered ${outcome}` });
    } else if (isEvent(event, 'tool.result') && event.data.outcome === 'denied') {
      const { callId, content } = event.data;
      const call = calls.get(callId) ?? { tool: 'unknown', input: undefined };
      const decision = decisions.get(callId) ?? {
        by: 'headless' as const,
        reason: content.replace(/^Permission denied: /, ''),
      };
      denied.push({ callId, tool: call.tool, input: call.input, ...decision });
    }
  }
  return denied;
}
