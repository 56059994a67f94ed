import { fromCallback } from 'xstate';
import type { Clock } from '../core/clock.ts';
import { describeValue, messageOf } from '../errors/describe-value.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { ToolBatchEvent } from '../machines/tool-batch.ts';
import type { ToolOutcome } from '../session/types.ts';
import type { AnyTool } from '../tools/define-tool.ts';
import { resultOfOutput, resultOfThrow } from '../tools/tool-output.ts';
import type { DependenciesOf } from './dependencies.ts';
import type { Publish } from './live-event.ts';

export type ToolCallDeps = {
  agentId: string;
  tools: ReadonlyMap<string, AnyTool>;
  cwd: string;
  clock: Clock;
  publish: Publish;
  /** Used when a tool sets no `timeoutMs` (default 10 minutes). */
  defaultTimeoutMs?: number;
  /** How long an aborted tool may take to wind down before it is reported as aborted anyway (1 s). */
  abortGraceMs?: number;
  /**
   * Makes the log durable before the tool runs (write-ahead), so a crash during a tool leaves
   * `tool.started` behind and repair can warn the model that the outcome is unknown.
   */
  writeAhead?: () => Promise<void>;
  /**
   * Told about a tool that was reported aborted or timed out while its `run` was still winding down
   * (after the grace), so that dispose can wait for it to finish (bash is still stopping processes then).
   */
  lingering?: (work: Promise<unknown>) => void;
};

export type ToolCallInput = AgentKeyed & {
  callId: string;
  name: string;
  input: unknown;
  turn: number;
  step: number;
};

type Settlement = { outcome: ToolOutcome; content: string; error?: string };

/**
 * Runs one validated, permitted tool call with an AbortSignal and a timeout (both on the injected clock)
 * and reports exactly one `tool.settled`. On `tool.abort` or timeout the tool's signal fires; the call
 * settles when the tool returns or after a short grace, whichever is first, so a tool that ignores its
 * signal cannot hold up a cancel.
 */
export function createToolCallActor(depsOf: DependenciesOf<ToolCallDeps>) {
  return fromCallback<{ type: 'tool.abort' }, ToolCallInput>(({ input, sendBack, receive }) => {
    const deps = depsOf(input.agentKey);
    const controller = new AbortController();
    const timers: (() => void)[] = [];
    let settled = false;
    let stopped = false;
    let ending: 'aborted' | 'timeout' | undefined;

    const settle = (result: Settlement) => {
      if (settled) return;
      settled = true;
      for (const cancel of timers) cancel();
      if (!stopped)
        sendBack({ type: 'tool.settled', callId: input.callId, ...result } satisfies ToolBatchEvent);
    };
    let work: Promise<unknown> | undefined;
    let returned = false;
    // The tool is still running after the call ended for the batch: dispose waits for it to return.
    const linger = () => {
      if (work && !returned) deps.lingering?.(work);
    };
    const endEarly = (kind: 'aborted' | 'timeout') => {
      if (settled || ending) return;
      ending = kind;
      controller.abort(kind === 'timeout' ? new Error('tool timed out') : new Error('tool call aborted'));
      const afterGrace = () => {
        linger();
        settle(endedEarly(kind, timeoutMs));
      };
      timers.push(deps.clock.setTimer(afterGrace, deps.abortGraceMs ?? 1_000));
    };

    const tool = deps.tools.get(input.name);
    const timeoutMs = tool?.timeoutMs ?? deps.defaultTimeoutMs ?? 600_000;
    receive((event) => {
      if (event.type === 'tool.abort') endEarly('aborted');
    });
    if (!tool) {
      settle({ outcome: 'error', content: `Unknown tool "${input.name}".`, error: 'unknown tool' });
      return;
    }
    timers.push(deps.clock.setTimer(() => endEarly('timeout'), timeoutMs));
    const context = {
      signal: controller.signal,
      cwd: deps.cwd,
      callId: input.callId,
      agentId: deps.agentId,
      // The tool may pass anything: text is described and progress made JSON-safe before it is published.
      log: (message: unknown) =>
        deps.publish({
          type: 'runtime.error',
          agentId: deps.agentId,
          message: `[${input.name}] ${typeof message === 'string' ? message : messageOf(message)}`,
        }),
      onProgress: (progress: unknown) =>
        deps.publish({
          type: 'tool.progress',
          agentId: deps.agentId,
          callId: input.callId,
          progress: jsonSafe(progress),
        }),
    };
    work = runAfterWriteAhead(deps, () => (ending ? undefined : tool.run(input.input, context)));
    work.then(
      (output) => {
        returned = true;
        settle(ending ? endedEarly(ending, timeoutMs) : resultOfOutput(output));
      },
      (error: unknown) => {
        returned = true;
        settle(ending ? endedEarly(ending, timeoutMs) : resultOfThrow(error));
      },
    );
    return () => {
      stopped = true;
      // A settled call is over; only a call still running is told to stop.
      if (!settled) {
        controller.abort(new Error('tool call stopped'));
        linger();
      }
      for (const cancel of timers) cancel();
    };
  });
}

/** Runs the tool once the log is durable; a call aborted meanwhile never runs (it resolves undefined). */
async function runAfterWriteAhead(deps: ToolCallDeps, run: () => unknown): Promise<unknown> {
  try {
    await deps.writeAhead?.();
  } catch (error) {
    throw new Error(`the session log could not be written, so the tool was not run: ${messageOf(error)}`);
  }
  return run();
}

/**
 * Progress as plain JSON data, so every consumer (the CLI's `--json`, the inspector) can encode it;
 * something JSON cannot encode (a circular object, a BigInt) is published as its description.
 */
function jsonSafe(progress: unknown): unknown {
  try {
    const json = JSON.stringify(progress);
    return json === undefined ? null : JSON.parse(json);
  } catch {
    return `unencodable progress: ${describeValue(progress)}`;
  }
}

function endedEarly(kind: 'aborted' | 'timeout', timeoutMs: number): Settlement {
  return kind === 'timeout'
    ? { outcome: 'timeout', content: `The tool did not finish within ${timeoutMs} ms and was stopped.` }
    : { outcome: 'aborted', content: 'The tool call was aborted before it finished.' };
}
