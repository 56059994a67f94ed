// Command hooks: a command gets the hook's JSON on stdin (one line, Claude Code's field names) and answers on
// stdout and with its exit code (hook-output.ts). It runs like the `bash` tool's commands (hook-process.ts):
// its own process group with a marker, the host's environment without credentials, and the whole tree
// stopped when the turn is cancelled, the hook's time is up, or the hook has answered. What it puts in
// front of the model is capped (`hookTextMaxChars`).

import { timeLimit } from '../core/time-limit.ts';
import type { PermissionMode } from '../permissions/modes.ts';
import { claudeToolName, fromClaudeInput, toClaudeInput } from '../tools/claude-code-names.ts';
import { callCondition } from './hook-condition.ts';
import { pointMatcher } from './hook-matcher.ts';
import { readProcessEnd } from './hook-output.ts';
import { type HookProcessOptions, runHookProcess } from './hook-process.ts';
import type { HookBase, HookEntry, HookPoint, HookRun } from './hook-types.ts';

// Where other modules have read the tool matcher from (hook-matcher.ts is its home).
export { toolMatcher } from './hook-matcher.ts';

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

/** Claude Code's names of agentchart's permission modes (`permission_mode`). */
const claudeModeNames: Record<PermissionMode, string> = {
  default: 'default',
  'accept-edits': 'acceptEdits',
  plan: 'plan',
  bypass: 'bypassPermissions',
};

export type CommandHookSpec = {
  point: HookPoint;
  command: string;
  timeoutMs: number;
  matcher?: string;
  /** Exec form: `command` is run directly with these arguments, no shell. */
  args?: readonly string[];
  /** Claude Code's `async`: run, but nothing it answers decides anything. */
  async?: boolean;
  /** Claude Code's `if`: a permission rule; the hook runs only for calls it matches (tool points). */
  if?: string;
};

/** How command hooks run; each runs in the workspace of the agent that consults it (`HookBase.cwd`). */
export type CommandHookOptions = Omit<HookProcessOptions, 'cwd'>;

/**
 * The JSON a command hook reads on stdin: Claude Code's names, plus agentchart's `turn` and `step`. A
 * built-in tool is named as Claude Code names it (`tool_name: "Bash"`, `tool_input: { file_path, ... }`:
 * see claude-code-names.ts), so a script written for Claude Code reads what it expects; MCP tools and the
 * host's own tools keep their names and inputs.
 */
export function commandInput(
  input: HookBase & Record<string, unknown>,
  transcriptPath = '',
): Record<string, unknown> {
  const common = {
    session_id: input.sessionId,
    transcript_path: transcriptPath,
    cwd: input.cwd,
    ...(input.permissionMode !== undefined ? { permission_mode: claudeModeNames[input.permissionMode] } : {}),
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
        last_assistant_message: input.text,
        refusals: input.refusals,
        text: input.text,
        ...(input.parent !== undefined ? { parent_session_id: input.parent } : {}),
      };
    default:
      return common;
  }
}

/** A command hook as a runtime entry. */
export function commandHook(spec: CommandHookSpec, options: CommandHookOptions): HookEntry {
  const matcher = pointMatcher(spec.point, spec.matcher);
  const condition = spec.if !== undefined ? callCondition(spec.if) : undefined;
  const matches =
    matcher === undefined && condition === undefined
      ? undefined
      : (value: string, input: unknown, cwd: string) =>
          (matcher?.(value) ?? true) && (condition?.(value, input, cwd) ?? true);
  return {
    name: spec.args ? [spec.command, ...spec.args].join(' ') : spec.command,
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
  let transcript = '';
  try {
    transcript = (await input.transcriptPath?.()) ?? '';
  } catch {
    // A transcript that cannot be written is an empty path, as Claude Code's may lag: the hook still runs.
  }
  const run = await runOnce(spec, options, input, transcript, signal);
  // Claude Code does not wait for an async hook, so nothing it answers decides anything here either.
  if (spec.async === true) return { kind: 'answer', answer: undefined };
  // The hook wrote `updatedInput` in the fields it read (Claude Code's): the tool is checked with its own.
  if (run.kind === 'answer' && run.answer?.input !== undefined && typeof input.toolName === 'string')
    run.answer.input = fromClaudeInput(input.toolName, run.answer.input);
  return run;
}

async function runOnce(
  spec: CommandHookSpec,
  options: CommandHookOptions,
  input: HookBase & Record<string, unknown>,
  transcript: string,
  signal: AbortSignal,
): Promise<HookRun> {
  const limit = timeLimit(signal, spec.timeoutMs);
  // One line of compact JSON with a newline: `read -r input` and `jq` read it whole.
  const stdin = `${JSON.stringify(commandInput(input, transcript))}\n`;
  // In the consulting agent's workspace: an isolated agent's hooks see its worktree, not the system's
  // folder (which `CLAUDE_PROJECT_DIR` still names, so that their scripts are found).
  const end = await runHookProcess(
    { command: spec.command, ...(spec.args ? { args: spec.args } : {}) },
    { ...options, cwd: input.cwd },
    stdin,
    limit.signal,
  ).finally(() => limit.release());
  if (end.spawnError) return { kind: 'error', reason: `the hook could not be started: ${end.spawnError}` };
  if (signal.aborted) return { kind: 'error', reason: 'aborted' };
  // Only a hook stopped before it exited timed out; one that answered in time keeps its answer.
  if (end.stopped)
    return { kind: 'timeout', reason: `the hook did not answer within ${spec.timeoutMs} ms; it was stopped` };
  return readProcessEnd(input.point, end);
}
