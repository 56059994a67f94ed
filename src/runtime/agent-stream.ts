// `agent.stream(prompt)`: one turn as an async iterable of what happens in it — step boundaries, text,
// tool calls and their results — ending with the turn's result. It is driven by the turn's `run()`
// promise, not by the event bus alone: when that promise rejects (a bad argument, a disposed agent) the
// iteration rejects too, so a consumer never waits for a turn that will not end.
import type { LiveEvent } from '../actors/live-event.ts';
import { AgentStateError } from '../errors/agent-state-error.ts';
import type { ProviderErrorData } from '../errors/provider-error.ts';
import { isEvent, type LogEvent, type ToolOutcome } from '../session/types.ts';
import type { LiveBus } from './live-bus.ts';
import type { RunResult } from './turn-result.ts';

/**
 * What `agent.stream()` yields, in the order it happened. `step.start` and `step.end` bound each step
 * (one model request and the tools it called), as the AI SDK's `start-step`/`finish-step` parts do;
 * `turn.end` is always last and carries what `run()` resolves with.
 */
export type AgentStreamEvent<Output = unknown> =
  | { type: 'step.start'; turn: number; step: number }
  /** A piece of the model's text. A step whose request failed and is retried streams its text again. */
  | { type: 'text.delta'; turn: number; step: number; text: string }
  /** A model request of the step failed; `retryInMs` absent: the step gave up (the turn ends `model_error`). */
  | { type: 'model.error'; turn: number; step: number; error: ProviderErrorData; retryInMs?: number }
  | { type: 'tool.call'; turn: number; step: number; callId: string; name: string; input: unknown }
  /** The call waits for `agent.approve()` / `agent.deny()` (a system with `approve: 'manual'`). */
  | { type: 'approval.asked'; turn: number; step: number; callId: string; name: string; input: unknown }
  | {
      type: 'tool.result';
      turn: number;
      step: number;
      callId: string;
      name: string;
      outcome: ToolOutcome;
      content: string;
    }
  | { type: 'step.end'; turn: number; step: number }
  | { type: 'turn.end'; result: RunResult<Output> };

/**
 * One turn, streamed. Iterate it for events, or `.text` for the text alone; it has one consumer (the
 * events or `.text`, not both). `result` resolves as `run()` does (with `output` for a typed stream).
 */
export interface AgentStream<Output = unknown> extends AsyncIterable<AgentStreamEvent<Output>> {
  /**
   * The model's text as it arrives. Unlike the AI SDK's `textStream`, which runs the texts of consecutive
   * steps together, the text of a step that follows one with text starts after a blank line (`\n\n`).
   */
  readonly text: AsyncIterable<string>;
  /** What `agent.run()` would resolve with; rejects as the iteration does. */
  readonly result: Promise<RunResult<Output>>;
}

/** How a stream's turn is started: queue the message, learn its inbox id, and wait for its result. */
export type StartTurn = (onQueued: (inboxId: string) => void) => Promise<RunResult>;

/** Follows one turn on the bus; `start` queues it once the stream listens (nothing can be missed). */
export function createAgentStream(options: {
  agentId: string;
  bus: LiveBus;
  start: StartTurn;
  maxBuffered: number;
}): AgentStream {
  const follower = new TurnFollower(options.agentId, options.maxBuffered);
  const unsubscribe = options.bus.subscribe((event) => follower.take(event));
  let result: Promise<RunResult>;
  try {
    result = options.start((inboxId) => follower.follow(inboxId));
  } catch (error) {
    result = Promise.reject(error);
  }
  result.then(
    (value) => follower.settle({ ok: true, value }),
    (error: unknown) => follower.settle({ ok: false, error }),
  );
  result.finally(unsubscribe).catch(() => {
    // The rejection is the stream's to report (settle above), not this cleanup's.
  });
  const events = (): AsyncIterator<AgentStreamEvent> => follower.iterator(unsubscribe);
  return {
    [Symbol.asyncIterator]: events,
    get text() {
      return { [Symbol.asyncIterator]: () => textOf(events()) };
    },
    result: follower.result,
  };
}

type Outcome = { ok: true; value: RunResult } | { ok: false; error: unknown };

/** The events of one turn, kept until the consumer reads them; the turn is the one that claims `inboxId`. */
class TurnFollower {
  /** How the turn ended for the stream: the run's result, or why the stream rejects. */
  readonly result: Promise<RunResult>;
  private answer!: { resolve: (result: RunResult) => void; reject: (error: unknown) => void };
  private buffered: AgentStreamEvent[] = [];
  private head = 0;
  private readonly calls = new Map<string, { name: string; input: unknown }>();
  private inboxId: string | undefined;
  private turn: number | undefined;
  private disposedDuringTurn = false;
  private outcome: Outcome | undefined;
  private overflowed = false;
  private ended = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly agentId: string,
    private readonly maxBuffered: number,
  ) {
    this.result = new Promise((resolve, reject) => (this.answer = { resolve, reject }));
    // Read from the iteration or `result`: a stream nobody reads leaves no unhandled rejection.
    this.result.catch(() => {});
  }

  follow(inboxId: string): void {
    this.inboxId = inboxId;
  }

  take(live: LiveEvent): void {
    if (this.outcome !== undefined || this.overflowed) return;
    const event = live.type === 'log' ? this.fromLog(live.event) : this.fromLive(live);
    if (event === undefined) return;
    if (this.buffered.length - this.head >= this.maxBuffered) this.overflowed = true;
    else this.buffered.push(event);
    this.wake?.();
  }

  settle(outcome: Outcome): void {
    // A turn that ended because the agent was disposed is no result: the stream says so by rejecting.
    this.outcome =
      outcome.ok && this.disposedDuringTurn
        ? {
            ok: false,
            error: new AgentStateError(
              `agent ${this.agentId} was disposed during turn ${outcome.value.turn}`,
            ),
          }
        : outcome;
    if (this.outcome.ok) this.answer.resolve(this.outcome.value);
    else this.answer.reject(this.outcome.error);
    this.wake?.();
  }

  /** The stream's one iterator: once it has ended (done, thrown, or left early), iterating again yields nothing. */
  iterator(stop: () => void): AsyncIterator<AgentStreamEvent> {
    const end = (): IteratorReturnResult<undefined> => {
      this.ended = true;
      this.buffered = [];
      this.head = 0;
      stop();
      return { value: undefined, done: true };
    };
    return {
      next: async () => {
        if (this.ended) return { value: undefined, done: true };
        while (this.head === this.buffered.length && this.outcome === undefined && !this.overflowed)
          await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        if (this.head < this.buffered.length) {
          const event = this.buffered[this.head++]!;
          // Drop read events now and then, so a long turn does not keep them all.
          if (this.head > 1_024 && this.head * 2 > this.buffered.length) {
            this.buffered = this.buffered.slice(this.head);
            this.head = 0;
          }
          return { value: event, done: false };
        }
        end();
        if (this.overflowed) {
          throw new AgentStateError(
            `agent.stream: the consumer fell more than ${this.maxBuffered} events behind and was cut off; ` +
              'the turn goes on, and agent.log() has every logged event',
          );
        }
        const outcome = this.outcome!;
        if (!outcome.ok) throw outcome.error;
        return { value: { type: 'turn.end', result: outcome.value }, done: false };
      },
      return: async () => end(),
    };
  }

  private fromLive(live: LiveEvent): AgentStreamEvent | undefined {
    if (live.type !== 'model.delta' || live.turn !== this.turn || this.turn === undefined) return undefined;
    return { type: 'text.delta', turn: live.turn, step: live.step, text: live.text };
  }

  private fromLog(event: LogEvent): AgentStreamEvent | undefined {
    if (
      isEvent(event, 'inbox.claimed') &&
      this.inboxId !== undefined &&
      event.data.ids.includes(this.inboxId)
    )
      this.turn = event.turn;
    if (this.turn === undefined || event.turn !== this.turn) return undefined;
    const at = { turn: this.turn, step: event.step ?? 0 };
    if (isEvent(event, 'step.start')) return { type: 'step.start', ...at };
    if (isEvent(event, 'step.end')) return { type: 'step.end', ...at };
    if (isEvent(event, 'assistant.attempt')) {
      const { error, retryInMs } = event.data;
      return { type: 'model.error', ...at, error, ...(retryInMs !== undefined ? { retryInMs } : {}) };
    }
    if (isEvent(event, 'tool.call')) {
      const { callId, name, input } = event.data;
      this.calls.set(callId, { name, input });
      return { type: 'tool.call', ...at, callId, name, input };
    }
    if (isEvent(event, 'approval.asked')) {
      const call = this.calls.get(event.data.callId) ?? { name: 'unknown', input: undefined };
      return { type: 'approval.asked', ...at, callId: event.data.callId, ...call };
    }
    if (isEvent(event, 'tool.result')) {
      const { callId, outcome, content } = event.data;
      const name = this.calls.get(callId)?.name ?? 'unknown';
      return { type: 'tool.result', ...at, callId, name, outcome, content };
    }
    if (isEvent(event, 'turn.end') && event.data.cause === 'disposed') this.disposedDuringTurn = true;
    return undefined;
  }
}

/** The text deltas of a stream, with a blank line between the texts of two steps. */
async function* textOf(events: AsyncIterator<AgentStreamEvent>): AsyncGenerator<string> {
  const iterable = { [Symbol.asyncIterator]: () => events };
  let lastStep: number | undefined;
  for await (const event of iterable) {
    if (event.type !== 'text.delta' || event.text === '') continue;
    if (lastStep !== undefined && event.step !== lastStep) yield '\n\n';
    lastStep = event.step;
    yield event.text;
  }
}
