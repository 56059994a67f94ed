import { fromCallback } from 'xstate';
import { messageOf } from '../errors/describe-value.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { ModelCallCommand, StepEvent } from '../machines/step-types.ts';
import type { ModelRequest, Provider } from '../providers/types.ts';
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
};

export type ModelCallInput = { turn: number; step: number; attempt: number };

const stopReason = new Error('model call stopped');

/**
 * The step's model-call actor. It lives as long as the step actor and streams one request per
 * `model.request`: it flushes the log first (nothing reaches the model that is not durable), forwards
 * deltas live and to the step, and ends each request with exactly one `model.done` or `model.error`,
 * whatever the provider does: every event is read by a `ResponseReader`, and a provider whose `stream`
 * throws, returns something that is not async-iterable, or whose iterator throws any value (an
 * `AgentchartError` of another class included) ends the request with a `model.error`.
 * `model.abort`, a newer request or stopping the actor aborts the request in flight; an aborted request
 * sends nothing more, so the step never sees a stale event.
 */
export function createModelCallActor(depsOf: DependenciesOf<ModelCallDeps>) {
  return fromCallback<ModelCallCommand, AgentKeyed>(({ input, sendBack, receive }) => {
    const deps = depsOf(input.agentKey);
    let current: { controller: AbortController; finished: boolean } | undefined;
    const abortCurrent = () => {
      // A finished request has nothing to abort; aborting still allocates a DOMException per step.
      if (current && !current.finished) current.controller.abort(stopReason);
      current = undefined;
    };
    receive((command) => {
      abortCurrent();
      if (command.type !== 'model.request') return;
      const request = { controller: new AbortController(), finished: false };
      current = request;
      const { signal } = request.controller;
      const send = (event: StepEvent) => {
        // Nothing after the end either: an iterator whose `return()` throws after `done` is not an error.
        if (signal.aborted || request.finished) return;
        if (event.type === 'model.done' || event.type === 'model.error') request.finished = true;
        sendBack(event);
      };
      streamResponse(deps, command, signal, send).catch((error: unknown) =>
        send({ type: 'model.error', error: toErrorData(error) }),
      );
    });
    return abortCurrent;
  });
}

async function streamResponse(
  deps: ModelCallDeps,
  input: ModelCallInput,
  signal: AbortSignal,
  send: (event: StepEvent) => void,
): Promise<void> {
  try {
    await deps.flush();
  } catch (error) {
    const message = `the session log could not be written: ${messageOf(error)}`;
    send({ type: 'model.error', error: { kind: 'server', message, retryable: false } });
    return;
  }
  if (signal.aborted) return;
  const reader = new ResponseReader(input, toErrorData);
  const events: unknown = deps.provider.stream(deps.buildRequest(), signal);
  if (!isAsyncIterable(events)) {
    const what = events === null ? 'null' : `a value of type ${typeof events}`;
    const message = `malformed model response: the provider's stream() returned ${what}, not an async iterable`;
    send({ type: 'model.error', error: { kind: 'bad_response', message, retryable: false } });
    return;
  }
  const { agentId } = deps;
  const { turn, step } = input;
  for await (const event of events) {
    if (signal.aborted) return;
    const reading = reader.read(event);
    if (reading === undefined) continue;
    if (reading.type === 'text.delta') {
      deps.publish({ type: 'model.delta', agentId, turn, step, text: reading.text });
      send({ type: 'model.delta', text: reading.text });
    } else if (reading.type === 'thinking.delta') {
      deps.publish({ type: 'thinking.delta', agentId, turn, step, text: reading.text });
    } else {
      send(reading);
      return;
    }
  }
  if (!signal.aborted) send(reader.endedEarly());
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}
