// The host's hooks as runtime entries. In-process hooks are functions run with a signal and a time limit,
// their answer checked with zod; command hooks run as processes (command-hook.ts).

import { z } from 'zod/v4';
import { milliseconds } from '../core/host-schema.ts';
import { timeLimit } from '../core/time-limit.ts';
import { messageOf } from '../errors/describe-value.ts';
import { environmentFilter } from '../tools/command-environment.ts';
import { commandHook } from './command-hook.ts';
import type { ProcessSweeps } from './hook-process.ts';
import {
  type CommandHook,
  defaultHookTimeoutMs,
  type HookAnswer,
  type HookEntry,
  type HookFunction,
  type Hooks,
  type HookTable,
  type NamedHook,
  type WiredHookPoint,
  wiredHookPoints,
} from './hook-types.ts';

/** A hook's answer: anything else (a string, an unknown field, a wrong type) is `invalid`. */
export const hookAnswerSchema = z.strictObject({
  decision: z.enum(['allow', 'ask', 'deny', 'block']).optional(),
  reason: z.string().optional(),
  input: z.record(z.string(), z.unknown()).optional(),
  content: z.string().optional(),
  message: z.string().optional(),
  additionalContext: z.string().optional(),
  delayMs: milliseconds.optional(),
  system: z.string().optional(),
  tools: z.array(z.string()).optional(),
  model: z.string().optional(),
  systemMessage: z.string().optional(),
});

/** Checks what a hook answered; `undefined` and `null` are no opinion. */
export function readAnswer(
  value: unknown,
): { ok: true; answer: HookAnswer | undefined } | { ok: false; reason: string } {
  if (value === undefined || value === null) return { ok: true, answer: undefined };
  const parsed = hookAnswerSchema.safeParse(value);
  if (parsed.success) return { ok: true, answer: parsed.data as HookAnswer };
  return {
    ok: false,
    reason: `the hook answered something that is not a hook answer: ${z.prettifyError(parsed.error)}`,
  };
}

function entryOf<Point extends WiredHookPoint>(
  point: Point,
  hook: HookFunction<Point> | NamedHook<Point>,
  index: number,
): HookEntry {
  const named = typeof hook === 'function' ? { run: hook } : hook;
  const name = named.name ?? (named.run.name || `${point}[${index}]`);
  const timeoutMs = named.timeoutMs ?? defaultHookTimeoutMs;
  return {
    name,
    run: (input, signal) =>
      new Promise((resolve) => {
        // The hook's own limit is real time, like a tool's: it aborts the hook's signal, it does not race it.
        const limit = timeLimit(signal, timeoutMs);
        const both = limit.signal;
        const onAbort = () => {
          if (limit.timedOut)
            resolve({ kind: 'timeout', reason: `the hook did not answer within ${timeoutMs} ms` });
          else resolve({ kind: 'error', reason: 'aborted' });
        };
        both.addEventListener('abort', onAbort, { once: true });
        Promise.resolve()
          .then(() => named.run(input as never, { signal: both }))
          .then(
            (value) => {
              const read = readAnswer(value);
              resolve(
                read.ok ? { kind: 'answer', answer: read.answer } : { kind: 'invalid', reason: read.reason },
              );
            },
            (error: unknown) => resolve({ kind: 'error', reason: `the hook threw: ${messageOf(error)}` }),
          )
          .finally(() => {
            both.removeEventListener('abort', onAbort);
            limit.release();
          });
      }),
  };
}

/**
 * The host's hooks as runtime entries, by point: functions run in this process, command hooks in the
 * workspace of the agent that consults them with the `bash` tool's environment rules (credentials
 * withheld) and the system's folder as `CLAUDE_PROJECT_DIR` (`projectDir`). The stopping of what
 * command hooks leave running is tracked in `sweeps`.
 */
export function hookTable(hooks: Hooks | undefined, projectDir: string, sweeps?: ProcessSweeps): HookTable {
  const table: HookTable = {};
  if (hooks === undefined) return table;
  const passes = environmentFilter();
  for (const point of wiredHookPoints) {
    const list = hooks[point] as
      | Array<HookFunction<typeof point> | NamedHook<typeof point> | CommandHook>
      | undefined;
    if (!list || list.length === 0) continue;
    table[point] = list.map((hook, index) => {
      if (typeof hook === 'function' || !('type' in hook)) return entryOf(point, hook, index);
      const spec = {
        point,
        command: hook.command,
        timeoutMs: hook.timeoutMs ?? defaultHookTimeoutMs,
        ...(hook.matcher !== undefined ? { matcher: hook.matcher } : {}),
        ...(hook.args !== undefined ? { args: hook.args } : {}),
        ...(hook.async !== undefined ? { async: hook.async } : {}),
        ...(hook.if !== undefined ? { if: hook.if } : {}),
      };
      return commandHook(spec, { projectDir, passes, ...(sweeps ? { sweeps } : {}) });
    });
  }
  return table;
}
