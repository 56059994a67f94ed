import { fromCallback } from 'xstate';
import { ProviderError, type ProviderErrorData } from '../errors/provider-error.ts';
import type { ModelCallCommand, ModelDoneEvent, StepEvent } from '../machines/step.ts';
import {
  addUsage,
  emptyUsage,
  type ModelRequest,
  type Provider,
  type ProviderPart,
  type ToolCallRequest,
} from '../providers/types.ts';
import type { SessionLog } from '../session/session-log.ts';
import type { Publish } from './live-event.ts';
import type { Resolve } from './resolve.ts';

export type ModelCallDeps = {
  agentId: string;
  provider: Provider;
  log: SessionLog;
  /** Projects the log into the request; called after the flush barrier, so it sees only durable facts. */
  buildRequest: () => ModelRequest;
  publish: Publish;
};

export type ModelCallInput = { turn: number; step: number; attempt: number };

const stopReason = new Error('model call stopped');

/** Any failure as plain data for events and the log. */
export function toErrorData(error: unknown): ProviderErrorData {
  // Recognised by marker, not instanceof, so errors from another copy of the package still classify.
  if (ProviderError.isInstance(error) && 'kind' in error) return (error as ProviderError).toJSON();
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'network', message, retryable: true };
}

/**
 * The step's model-call actor. It lives as long as the step actor and streams one request per
 * `model.request`: it flushes the log first (nothing reaches the model that is not durable), forwards
 * deltas live and to the step, and ends each request with exactly one `model.done` or `model.error`.
 * `model.abort`, a newer request or stopping the actor aborts the request in flight; an aborted request
 * sends nothing more, so the step never sees a stale event.
 */
export function createModelCallActor(depsOf: Resolve<ModelCallDeps>) {
  return fromCallback<ModelCallCommand, Record<string, never>>(({ sendBack, receive, self }) => {
    const deps = depsOf(self);
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
        if (signal.aborted) return;
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
    await deps.log.flush();
  } catch (error) {
    const message = `the session log could not be written: ${error instanceof Error ? error.message : String(error)}`;
    send({ type: 'model.error', error: { kind: 'server', message, retryable: false } });
    return;
  }
  if (signal.aborted) return;
  const request = deps.buildRequest();
  let text = '';
  let usage = emptyUsage;
  const toolCalls: ToolCallRequest[] = [];
  const providerParts: ProviderPart[] = [];
  for await (const event of deps.provider.stream(request, signal)) {
    if (signal.aborted) return;
    switch (event.type) {
      case 'text.delta':
        text += event.text;
        deps.publish({
          type: 'model.delta',
          agentId: deps.agentId,
          turn: input.turn,
          step: input.step,
          text: event.text,
        });
        send({ type: 'model.delta', text: event.text });
        break;
      case 'thinking.delta':
        deps.publish({
          type: 'thinking.delta',
          agentId: deps.agentId,
          turn: input.turn,
          step: input.step,
          text: event.text,
        });
        break;
      case 'tool_call':
        toolCalls.push(event.call);
        break;
      case 'provider_part':
        providerParts.push(event.part);
        break;
      case 'usage':
        usage = addUsage(usage, event.usage);
        break;
      case 'done': {
        const done: ModelDoneEvent = {
          type: 'model.done',
          text,
          toolCalls,
          usage,
          stopReason: event.stopReason,
        };
        if (providerParts.length > 0) done.providerParts = providerParts;
        send(done);
        return;
      }
      case 'error':
        send({ type: 'model.error', error: toErrorData(event.error) });
        return;
    }
  }
  if (!signal.aborted) {
    send({
      type: 'model.error',
      error: { kind: 'network', message: 'the model stream ended without a stop reason', retryable: true },
    });
  }
}
