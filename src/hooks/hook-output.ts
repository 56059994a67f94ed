// What a command hook's exit code and output mean, as Claude Code reads them (hooks "Exit code output" and
// "JSON output"; docs/claude-code/facts.md §2.6–2.7):
// - exit 0: stdout is JSON only when its first non-blank character is `{` and it parses; anything else is
//   plain text, which is context for the model at UserPromptSubmit and SessionStart and nothing elsewhere.
// - exit 2: blocks where the point can block, with the JSON's reason if it gave one, else stderr; at
//   PostToolUse (which cannot block) stderr is shown to the model next to the result.
// - any other exit: a JSON answer on stdout still decides; without one it is a failed hook (`error`).
import { z } from 'zod/v4';
import { milliseconds } from '../core/host-schema.ts';
import type { ProcessEnd } from './hook-process.ts';
import { capHookText } from './hook-text.ts';
import type { HookAnswer, HookPoint, HookRun } from './hook-types.ts';

/** Claude Code's hook output, with agentchart's additions (`updatedPrompt`, `updatedToolOutput`, `delayMs`, `updatedSystemPrompt`, `updatedTools`). */
const commandOutputSchema = z.looseObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  systemMessage: z.string().optional(),
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

type CommandOutput = z.infer<typeof commandOutputSchema>;

/** The points where Claude Code adds a hook's plain stdout to the model's context. */
const plainTextIsContext = new Set<HookPoint>(['userMessage', 'sessionStart']);

/** Stdout read as Claude Code reads it: a JSON object, or plain text. */
type Stdout = { kind: 'empty' } | { kind: 'text'; text: string } | { kind: 'json'; value: unknown };

function readStdout(stdout: string): Stdout {
  const text = stdout.trim();
  if (text === '') return { kind: 'empty' };
  if (!text.startsWith('{')) return { kind: 'text', text };
  try {
    return { kind: 'json', value: JSON.parse(text) };
  } catch {
    // Claude Code: "invalid JSON is treated as plain text".
    return { kind: 'text', text };
  }
}

/** What an exit-0 hook's stdout answers at `point`; empty output is no opinion. */
export function readCommandOutput(point: HookPoint, stdout: string): HookRun {
  const read = readStdout(stdout);
  if (read.kind === 'empty') return { kind: 'answer', answer: undefined };
  if (read.kind === 'text') {
    if (!plainTextIsContext.has(point)) return { kind: 'answer', answer: undefined };
    return { kind: 'answer', answer: { additionalContext: capHookText(read.text) } };
  }
  const parsed = commandOutputSchema.safeParse(read.value);
  if (!parsed.success)
    return { kind: 'invalid', reason: `stdout is not a hook answer: ${z.prettifyError(parsed.error)}` };
  return { kind: 'answer', answer: answerOf(point, parsed.data) };
}

/** What a finished hook process answered at `point` (not for one that was stopped or never started). */
export function readProcessEnd(point: HookPoint, end: ProcessEnd): HookRun {
  // Cut JSON would read as plain text, which decides nothing: an answer that long is refused instead.
  if (end.stdoutCut)
    return { kind: 'invalid', reason: 'stdout was cut (over 1000000 bytes); it was not read' };
  const said = capHookText(end.stderr.trim(), end.stderrCut ? `${end.stderrBytes} bytes` : undefined);
  if (end.exitCode === 0) return readCommandOutput(point, end.stdout);
  const json = readStdout(end.stdout);
  const output = json.kind === 'json' ? commandOutputSchema.safeParse(json.value) : undefined;
  if (end.exitCode === 2) {
    const reason = output?.success
      ? (output.data.hookSpecificOutput?.permissionDecisionReason ?? output.data.reason)
      : undefined;
    const why = reason !== undefined ? capHookText(reason) : said || 'the hook blocked this (exit code 2)';
    if (point === 'postTool') return { kind: 'answer', answer: { additionalContext: why } };
    return { kind: 'answer', answer: { decision: point === 'preTool' ? 'deny' : 'block', reason: why } };
  }
  // Claude Code: with a valid JSON answer on stdout, "the JSON alone decides and the hook is not an error".
  if (output?.success) return { kind: 'answer', answer: answerOf(point, output.data) };
  const detail = said ? `: ${said}` : '';
  return { kind: 'error', reason: `the hook exited with ${end.exitCode ?? end.signal}${detail}` };
}

function answerOf(point: HookPoint, out: CommandOutput): HookAnswer {
  const specific = out.hookSpecificOutput ?? {};
  const answer: HookAnswer = {};
  // Shown to the person, never to the model: logged with the decision.
  if (out.systemMessage !== undefined && out.systemMessage !== '')
    answer.systemMessage = capHookText(out.systemMessage);
  if (out.continue === false) return { ...answer, ...stopAnswer(point, out) };
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
  return answer;
}

/**
 * `continue: false` stops Claude Code's agent, and wins over the event's own decision. A Stop hook saying
 * so lets the turn end (it is not a refusal to stop); a prompt is dropped; a tool call is denied and a step
 * vetoed with `stopReason` (agentchart ends the turn only at points that can end it).
 */
function stopAnswer(point: HookPoint, out: CommandOutput): HookAnswer {
  const reason = capHookText(out.stopReason ?? out.reason ?? 'the hook said not to continue');
  if (point === 'stop' || point === 'subagentStop') return { reason };
  return { decision: point === 'preTool' ? 'deny' : 'block', reason };
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
