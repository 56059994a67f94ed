// Command hooks: a shell command gets the hook's JSON on stdin (Claude Code's field names) and answers JSON
// on stdout; exit code 2 blocks with stderr as the reason. It runs like the `bash` tool's commands
// (hook-process.ts): its own process group with a marker, the host's environment without credentials, and
// the whole tree stopped when the turn is cancelled, the hook's time is up, or the hook has answered.
// What it puts in front of the model is capped (`hookTextMaxChars`).

import { z } from 'zod/v4';
import { milliseconds } from '../core/host-schema.ts';
import { timeLimit } from '../core/time-limit.ts';
import {
  claudeToolName,
  fromClaudeInput,
  matcherNamesOf,
  toClaudeInput,
} from '../tools/claude-code-names.ts';
import { type HookProcessOptions, runHookProcess } from './hook-process.ts';
import { capHookText } from './hook-text.ts';
import type { HookAnswer, HookBase, HookEntry, HookPoint, HookRun } from './hook-types.ts';

/** Claude Code's `hook_event_name` of each point; agentchart's own points keep their name, capitalised. */
export const claudeEventNames: Record<HookPoint, string> = {
  sessionStart: 'SessionStart',
  userMessage: 'UserPromptSubmit',
  preStep: 'PreStep',
  request: 'Request',
  requestError: 'RequestError',
  preTool: 'PreToolUse',
  postTool: 'PostToolUse',
  stop: 'Stop',
  subagentStop: 'SubagentStop',
  preCompact: 'PreCompact',
  sessionEnd: 'SessionEnd',
};

export type CommandHookSpec = { command: string; timeoutMs: number; matcher?: string };

export type CommandHookOptions = HookProcessOptions;

/**
 * The JSON a command hook reads on stdin: Claude Code's names, plus agentchart's `turn` and `step`. A
 * built-in tool is named as Claude Code names it (`tool_name: "Bash"`, `tool_input: { file_path, ... }`:
 * see claude-code-names.ts), so a script written for Claude Code reads what it expects; MCP tools and the
 * host's own tools keep their names and inputs.
 */
export function commandInput(input: HookBase & Record<string, unknown>): Record<string, unknown> {
  const common = {
    session_id: input.sessionId,
    cwd: input.cwd,
    hook_event_name: claudeEventNames[input.point],
    turn: input.turn,
    step: input.step,
  };
  const tool =
    typeof input.toolName === 'string'
      ? {
          tool_name: claudeToolName(input.toolName),
          tool_input: toClaudeInput(input.toolName, input.toolInput, input.cwd),
        }
      : {};
  switch (input.point) {
    case 'preTool':
      return { ...common, ...tool, tool_use_id: input.callId };
    case 'postTool':
      return {
        ...common,
        ...tool,
        tool_use_id: input.callId,
        tool_response: input.toolResponse,
        is_error: input.isError,
      };
    case 'userMessage':
      return { ...common, prompt: input.message };
    case 'sessionStart':
      return { ...common, source: input.source };
    case 'sessionEnd':
      return { ...common, reason: input.reason };
    case 'request':
      return {
        ...common,
        system_prompt: input.system,
        tools: input.tools,
        model: input.model,
        models: input.models,
      };
    case 'requestError':
      return { ...common, error: input.error, attempt: input.attempt, retry_in_ms: input.retryInMs ?? null };
    case 'preCompact':
      return { ...common, trigger: input.trigger, custom_instructions: input.instructions ?? '' };
    case 'stop':
    case 'subagentStop':
      return {
        ...common,
        stop_hook_active: Number(input.refusals) > 0,
        refusals: input.refusals,
        text: input.text,
        ...(input.parent !== undefined ? { parent_session_id: input.parent } : {}),
      };
    default:
      return common;
  }
}

/** Claude Code's hook output, with agentchart's additions (`updatedPrompt`, `updatedToolOutput`, `delayMs`, `updatedSystemPrompt`, `updatedTools`). */
const commandOutputSchema = z.looseObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  decision: z.enum(['approve', 'block', 'allow', 'deny', 'ask']).optional(),
  reason: z.string().optional(),
  hookSpecificOutput: z
    .looseObject({
      hookEventName: z.string().optional(),
      permissionDecision: z.enum(['allow', 'deny', 'ask']).optional(),
      permissionDecisionReason: z.string().optional(),
      updatedInput: z.record(z.string(), z.unknown()).optional(),
      additionalContext: z.string().optional(),
      updatedPrompt: z.string().optional(),
      updatedToolOutput: z.string().optional(),
      delayMs: milliseconds.optional(),
      updatedSystemPrompt: z.string().optional(),
      updatedTools: z.array(z.string()).optional(),
      model: z.string().optional(),
      updatedMCPToolOutput: z.unknown().optional(),
    })
    .optional(),
});

/** Reads a command hook's stdout as an answer at `point`; empty output is no opinion. */
export function readCommandOutput(point: HookPoint, stdout: string): HookRun {
  if (stdout.trim() === '') return { kind: 'answer', answer: undefined };
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    return { kind: 'invalid', reason: `stdout is not JSON: ${JSON.stringify(stdout.slice(0, 200))}` };
  }
  const parsed = commandOutputSchema.safeParse(json);
  if (!parsed.success)
    return { kind: 'invalid', reason: `stdout is not a hook answer: ${z.prettifyError(parsed.error)}` };
  const out = parsed.data;
  const specific = out.hookSpecificOutput ?? {};
  const answer: HookAnswer = {};
  if (out.continue === false) {
    answer.decision = point === 'preTool' ? 'deny' : 'block';
    answer.reason = capHookText(out.stopReason ?? out.reason ?? 'the hook said not to continue');
    return { kind: 'answer', answer };
  }
  const decision = specific.permissionDecision ?? legacyDecision(point, out.decision);
  if (decision !== undefined) answer.decision = decision;
  const reason = specific.permissionDecisionReason ?? out.reason;
  if (reason !== undefined) answer.reason = capHookText(reason);
  if (specific.updatedInput !== undefined) answer.input = specific.updatedInput;
  if (specific.delayMs !== undefined) answer.delayMs = specific.delayMs;
  if (specific.updatedPrompt !== undefined) answer.message = specific.updatedPrompt;
  if (specific.updatedSystemPrompt !== undefined) answer.system = specific.updatedSystemPrompt;
  if (specific.updatedTools !== undefined) answer.tools = specific.updatedTools;
  if (specific.model !== undefined) answer.model = specific.model;
  const toolOutput = specific.updatedToolOutput ?? mcpText(specific.updatedMCPToolOutput);
  if (toolOutput !== undefined) answer.content = capHookText(toolOutput);
  // Claude Code's PostToolUse `decision: block` feeds the reason to the model: here it annotates the result.
  const context = capHookText(
    [specific.additionalContext, point === 'postTool' && out.decision === 'block' ? out.reason : undefined]
      .filter((text) => text !== undefined)
      .join('\n\n'),
  );
  if (context !== '') answer.additionalContext = context;
  if (point === 'postTool' && answer.decision === 'block') delete answer.decision;
  return { kind: 'answer', answer };
}

function legacyDecision(point: HookPoint, decision: string | undefined): HookAnswer['decision'] {
  if (decision === undefined) return undefined;
  if (point === 'preTool')
    return decision === 'approve' || decision === 'allow' ? 'allow' : decision === 'ask' ? 'ask' : 'deny';
  return decision === 'block' || decision === 'deny' ? 'block' : undefined;
}

function mcpText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  return value === undefined ? undefined : JSON.stringify(value);
}

/**
 * Claude Code's `matcher`: empty or `*` matches every tool, otherwise a regular expression on the whole name,
 * tried on the tool's own name and on each Claude Code name standing for it: `Bash` matches `bash`,
 * `Edit|Write|MultiEdit` matches `edit_file` and `write_file`, `read_file` still matches `read_file`.
 */
export function toolMatcher(matcher: string | undefined): ((toolName: string) => boolean) | undefined {
  if (matcher === undefined || matcher === '' || matcher === '*') return undefined;
  const pattern = new RegExp(`^(?:${matcher})$`);
  return (toolName) => matcherNamesOf(toolName).some((name) => pattern.test(name));
}

/** A command hook as a runtime entry. */
export function commandHook(spec: CommandHookSpec, options: CommandHookOptions): HookEntry {
  const matches = toolMatcher(spec.matcher);
  return {
    name: spec.command,
    ...(matches ? { matches } : {}),
    run: (input, signal) => runCommandHook(spec, options, input, signal),
  };
}

async function runCommandHook(
  spec: CommandHookSpec,
  options: CommandHookOptions,
  input: HookBase & Record<string, unknown>,
  signal: AbortSignal,
): Promise<HookRun> {
  const limit = timeLimit(signal, spec.timeoutMs);
  const end = await runHookProcess(
    spec.command,
    options,
    JSON.stringify(commandInput(input)),
    limit.signal,
  ).finally(() => limit.release());
  if (end.spawnError) return { kind: 'error', reason: `the hook could not be started: ${end.spawnError}` };
  if (signal.aborted) return { kind: 'error', reason: 'aborted' };
  // Only a hook stopped before it exited timed out; one that answered in time keeps its answer.
  if (end.stopped)
    return { kind: 'timeout', reason: `the hook did not answer within ${spec.timeoutMs} ms; it was stopped` };
  const said = capHookText(end.stderr.trim(), end.stderrCut ? `${end.stderrBytes} bytes` : undefined);
  if (end.exitCode === 2) {
    const reason = said || 'the hook blocked this (exit code 2)';
    return { kind: 'answer', answer: { decision: input.point === 'preTool' ? 'deny' : 'block', reason } };
  }
  if (end.exitCode !== 0) {
    const detail = said ? `: ${said}` : '';
    return { kind: 'error', reason: `the hook exited with ${end.exitCode ?? end.signal}${detail}` };
  }
  const run = readCommandOutput(input.point, end.stdout);
  // The hook wrote `updatedInput` in the fields it read (Claude Code's): the tool is checked with its own.
  if (run.kind === 'answer' && run.answer?.input !== undefined && typeof input.toolName === 'string')
    run.answer.input = fromClaudeInput(input.toolName, run.answer.input);
  return run;
}
