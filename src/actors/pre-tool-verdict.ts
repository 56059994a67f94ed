// What the `preTool` hooks' decisions mean for one call, once the permission rules have had their say
// too. Kept apart from the hook waits (hook.ts): this is the permission reasoning, pure and synchronous,
// where the waits only run hooks and report.
import type { HookDecidedData } from '../hooks/hook-types.ts';
import { foldPreTool, type PreToolResult } from '../hooks/waterfall.ts';
import type { PreToolVerdict } from '../machines/hook-events.ts';
import type { HookCallInput } from '../machines/tool-batch-hooks.ts';
import { exitPlanModeName } from '../permissions/modes.ts';
import { checkCall, headlessDenial, type ToolCheckDeps } from './tool-check.ts';

/**
 * What the hooks' decisions mean for one call, with the permission rules applied to a rewritten input. As in
 * Claude Code, a hook's deny always wins, and its allow skips the approval the mode would ask for but never
 * passes a deny rule or an ask that a rule made. A call that still needs approval when nobody can give it
 * (headless) is denied here, after the hooks had their say.
 */
export function preToolVerdict(
  check: ToolCheckDeps,
  call: HookCallInput,
  decisions: HookDecidedData[],
): PreToolVerdict {
  const folded = hostDecidesPlans(call, foldPreTool(decisions, call.input));
  const verdict = permissionVerdict(check, call, decisions, folded);
  return folded.context !== undefined ? { ...verdict, context: folded.context } : verdict;
}

function permissionVerdict(
  toolCheck: ToolCheckDeps,
  call: HookCallInput,
  decisions: HookDecidedData[],
  folded: PreToolResult,
): PreToolVerdict {
  if (folded.permission === 'deny') {
    const content = `Permission denied by hook ${folded.deniedBy}: ${folded.reason}`;
    return { callId: call.callId, decisions, verdict: 'reject', outcome: 'denied', content };
  }
  const { canAsk } = toolCheck.permissions;
  if (folded.permission === 'pass' && folded.input === call.input && canAsk)
    return { callId: call.callId, decisions };
  const check = checkCall(toolCheck, { id: call.callId, name: call.name, input: folded.input });
  const checked = { callId: call.callId, decisions, input: check.input, safe: check.safe };
  if (check.verdict === 'reject')
    return { ...checked, verdict: 'reject', outcome: check.outcome ?? 'error', content: check.content ?? '' };
  if (folded.permission === 'ask') {
    if (canAsk) return { ...checked, verdict: 'ask', safe: false };
    const content = `Permission denied: a hook asked for approval (${folded.reason ?? 'no reason given'}) and nobody can approve in this session.`;
    return { ...checked, verdict: 'reject', outcome: 'denied', content };
  }
  const hookAllows = folded.permission === 'allow' && check.askedBy !== 'rule';
  if (check.verdict === 'run' || hookAllows) return { ...checked, verdict: 'run' };
  if (canAsk) return { ...checked, verdict: 'ask', safe: false };
  const { reason, content } = headlessDenial(check.askReason ?? 'it needs approval');
  return {
    ...checked,
    verdict: 'reject',
    outcome: 'denied',
    content,
    decision: { outcome: 'deny', by: 'headless', reason },
  };
}

/**
 * Leaving plan mode is the host's decision only: a hook's allow for `exit_plan_mode` is no opinion, so the
 * plan still waits for the host's approval (a hook's ask or deny still counts; a deny ends it at once).
 */
function hostDecidesPlans(call: HookCallInput, folded: PreToolResult): PreToolResult {
  if (call.name !== exitPlanModeName || folded.permission !== 'allow') return folded;
  const { reason: _hookReason, ...rest } = folded;
  return { ...rest, permission: 'pass' };
}
