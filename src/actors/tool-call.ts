import { fromCallback } from 'xstate';
import type { Clock } from '../core/clock.ts';
import { describeValue, messageOf } from '../errors/describe-value.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { ToolBatchEvent } from '../machines/tool-batch.ts';
import type { ToolOutcome } from '../session/types.ts';
import type { AnyTool } from '../tools/define-tool.ts';
import { cutLongOutput, type WholeOutput } from '../tools/long-output.ts';
import { type SavedOutputs, savedOutputName } from '../tools/saved-output.ts';
import type { SkillFolders } from '../tools/skill-files.ts';
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
  /** Where results too long for the model go; without it every result is logged as the tool gave it. */
  longOutputs?: LongOutputs;
  /** The agent's skills by name, with their folders, whose files `read_file` may read. */
  skillFolders?: SkillFolders;
};

/**
 * The runtime's cap on a result the model reads whole. A longer one is saved whole first (`save`
 * resolves once the file is durable, with the path the model can read it at), then logged as its head,
 * its tail and a note (`cutLongOutput`), so the log never mentions a file that is not there.
 */
export type LongOutputs = {
  maxChars: number;
  save(name: string, content: string): Promise<string>;
  /** Handed to the tools, so `read_file` can read what was saved. */
  saved: SavedOutputs;
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
      maxOutputChars: deps.longOutputs?.maxChars,
      savedOutputs: deps.longOutputs?.saved,
      skillFolders: deps.skillFolders,
    };
    // A result the model could not read whole is saved first; the call settles when it is durable.
    const finish = (result: Settlement) => {
      if (deps.longOutputs === undefined || result.content.length <= deps.longOutputs.maxChars)
        settle(result);
      else void shorten(deps.longOutputs, input, result).then(settle);
    };
    work = runAfterWriteAhead(deps, () => (ending ? undefined : tool.run(input.input, context)));
    work.then(
      (output) => {
        returned = true;
        finish(ending ? endedEarly(ending, timeoutMs) : resultOfOutput(output));
      },
      (error: unknown) => {
        returned = true;
        finish(ending ? endedEarly(ending, timeoutMs) : resultOfThrow(error));
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

/**
 * The result as the model reads it when its content is over the cap: head, note, tail, with the whole
 * text saved under a name fixed by the call (replay writes the same log). A save that fails is said in
 * the note; the result is never lost. Never rejects.
 */
async function shorten(long: LongOutputs, call: ToolCallInput, result: Settlement): Promise<Settlement> {
  let whole: WholeOutput;
  try {
    whole = { path: await long.save(savedOutputName(call), result.content) };
  } catch (error) {
    whole = { failure: messageOf(error) };
  }
  const content = cutLongOutput(result.content, long.maxChars, whole);
  const error =
    result.error !== undefined && result.error.length > long.maxChars
      ? cutLongOutput(result.error, long.maxChars, whole)
      : result.error;
  return { ...result, content, ...(error !== undefined ? { error } : {}) };
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
