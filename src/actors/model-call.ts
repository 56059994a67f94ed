import { fromCallback } from 'xstate';
import { messageOf } from '../errors/describe-value.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { ModelCallCommand, StepEvent } from '../machines/step-types.ts';
import { contextWindowOf, type ModelRequest, type Provider } from '../providers/types.ts';
import { contextTokens } from '../session/context-tokens.ts';
import type { DependenciesOf } from './dependencies.ts';
import { toErrorData } from './error-data.ts';
import type { Publish } from './live-event.ts';
import { ResponseReader } from './model-response.ts';

export type ModelCallDeps = {
  agentId: string;
  provider: Provider;
  /** The flush barrier: resolves once everything appended to the log so far is in the store. */
  flush: () => Promise<void>;
  /** Projects the log into the request; called after the flush barrier, so it sees only durable facts. */
  buildRequest: () => ModelRequest;
  publish: Publish;
  /**
   * Plans a compaction of the log and builds its summarising request (after the flush barrier too);
   * `undefined` when there is nothing older to compact.
   */
  planCompaction: (instructions: string | undefined) => PlannedCompaction | undefined;
  /** The model that writes summaries (the `compaction.model` option, else the agent's own). */
  compactionProvider: Provider;
};

/** A compaction the runtime planned: the range it replaces, the context before it, and its request. */
export type PlannedCompaction = { replaces: [number, number]; tokensBefore: number; request: ModelRequest };

export type ModelCallInput = Extract<ModelCallCommand, { type: 'model.request' }>;

const stopReason = new Error('model call stopped');

/** The request in flight: its abort, whether it ended, and its reader (which holds the streamed text). */
type Streaming = { controller: AbortController; finished: boolean; reader?: ResponseReader };

/**
 * The step's model-call actor. It lives as long as the step actor and streams one request per
 * `model.request`: it flushes the log first (nothing reaches the model that is not durable), forwards
 * deltas live (the step hears once that text is streaming, not every delta), and ends each request with exactly one `model.done` or `model.error`,
 * whatever the provider does: every event is read by a `ResponseReader`, and a provider whose `stream`
 * throws, returns something that is not async-iterable, or whose iterator throws any value (an
 * `AgentchartError` of another class included) ends the request with a `model.error`.
 * `model.abort`, a newer request or stopping the actor aborts the request in flight; an aborted request
 * sends nothing more, so the step never sees a stale event.
 *
 * A request with `compaction` asks for a summary instead: the actor plans the range (or answers
 * `compaction.skipped`), streams the summarising request through the compaction model without forwarding
 * deltas (a summary is not an answer anyone reads live), and answers `compaction.done` with the summary;
 * failures are `model.error`s like any other, so the step retries them by the same policy. An answered
 * step request also publishes `context.usage`: how much of the window it used.
 */
export function createModelCallActor(depsOf: DependenciesOf<ModelCallDeps>) {
  return fromCallback<ModelCallCommand, AgentKeyed>(({ input, sendBack, receive }) => {
    const deps = depsOf(input.agentKey);
    let current: Streaming | undefined;
    const abortCurrent = () => {
      // A finished request has nothing to abort; aborting still allocates a DOMException per step.
      if (current && !current.finished) current.controller.abort(stopReason);
      current = undefined;
    };
    receive((command) => {
      // Read before the abort: the text consumers saw is what an interrupted message keeps.
      const streamedText = current?.reader?.streamedText ?? '';
      abortCurrent();
      if (command.type === 'model.interrupt') sendBack({ type: 'model.interrupted', text: streamedText });
      if (command.type !== 'model.request') return;
      const request: Streaming = { controller: new AbortController(), finished: false };
      current = request;
      const { signal } = request.controller;
      const send = (event: StepEvent) => {
        // Nothing after the end either: an iterator whose `return()` throws after `done` is not an error.
        if (signal.aborted || request.finished) return;
        if (event.type === 'model.done' || event.type === 'model.error') request.finished = true;
        sendBack(event);
      };
      streamResponse(deps, command, request, send).catch((error: unknown) =>
        send({ type: 'model.error', error: toErrorData(error) }),
      );
    });
    return abortCurrent;
  });
}

async function streamResponse(
  deps: ModelCallDeps,
  input: ModelCallInput,
  streaming: Streaming,
  send: (event: StepEvent) => void,
): Promise<void> {
  const { signal } = streaming.controller;
  try {
    await deps.flush();
  } catch (error) {
    const message = `the session log could not be written: ${messageOf(error)}`;
    send({ type: 'model.error', error: { kind: 'server', message, retryable: false } });
    return;
  }
  if (signal.aborted) return;
  if (input.compaction) return compact(deps, input, signal, send);
  const reader = new ResponseReader(input, toErrorData);
  streaming.reader = reader;
  const events: unknown = deps.provider.stream(deps.buildRequest(), signal);
  if (!isAsyncIterable(events)) return send(notIterable(events));
  const { agentId } = deps;
  const { turn, step } = input;
  for await (const event of events) {
    if (signal.aborted) return;
    const reading = reader.read(event);
    if (reading === undefined) continue;
    if (reading.type === 'text.delta') {
      deps.publish({ type: 'model.delta', agentId, turn, step, text: reading.text });
      // The step hears only that text began to reach consumers; the text waits here for a cancel.
      if (reading.text !== '' && reader.streamedText === reading.text) send({ type: 'model.streaming' });
    } else if (reading.type === 'thinking.delta') {
      deps.publish({ type: 'thinking.delta', agentId, turn, step, text: reading.text });
    } else {
      if (reading.type === 'model.done') {
        const usedTokens = contextTokens(reading.usage);
        const contextWindow = contextWindowOf(deps.provider);
        deps.publish({ type: 'context.usage', agentId, turn, step, usedTokens, contextWindow });
      }
      send(reading);
      return;
    }
  }
  if (!signal.aborted) send(reader.endedEarly());
}

async function compact(
  deps: ModelCallDeps,
  input: ModelCallInput,
  signal: AbortSignal,
  send: (event: StepEvent) => void,
): Promise<void> {
  const plan = deps.planCompaction(input.compaction?.instructions);
  if (plan === undefined) return send({ type: 'compaction.skipped' });
  deps.publish({ type: 'compaction.start', agentId: deps.agentId, turn: input.turn, step: input.step });
  const reader = new ResponseReader(input, toErrorData);
  const events: unknown = deps.compactionProvider.stream(plan.request, signal);
  if (!isAsyncIterable(events)) return send(notIterable(events));
  for await (const event of events) {
    if (signal.aborted) return;
    const reading = reader.read(event);
    if (reading === undefined || reading.type === 'text.delta' || reading.type === 'thinking.delta') continue;
    if (reading.type === 'model.error') return send(reading);
    // Tool calls are not asked for and not kept: the summary is the text.
    const summary = reading.text.trim();
    if (summary === '') {
      const message = 'malformed model response: the compaction request was answered with an empty summary';
      return send({ type: 'model.error', error: { kind: 'bad_response', message, retryable: false } });
    }
    const { replaces, tokensBefore } = plan;
    return send({ type: 'compaction.done', replaces, summary, tokensBefore, usage: reading.usage });
  }
  if (!signal.aborted) send(reader.endedEarly());
}

function notIterable(events: unknown): StepEvent {
  const what = events === null ? 'null' : `a value of type ${typeof events}`;
  const message = `malformed model response: the provider's stream() returned ${what}, not an async iterable`;
  return { type: 'model.error', error: { kind: 'bad_response', message, retryable: false } };
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}
