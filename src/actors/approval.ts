import { z } from 'zod/v4';
import { describeValue, messageOf } from '../errors/describe-value.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { ToolBatchEvent } from '../machines/tool-batch.ts';
import { exitPlanModeName, type PermissionMode, permissionModes } from '../permissions/modes.ts';
import { parseRule, ruleProblem } from '../permissions/rules.ts';
import type { DependenciesOf } from './dependencies.ts';
import { fromTask } from './from-task.ts';

export type ApprovalRequest = { agentId: string; callId: string; tool: string; input: unknown };
/**
 * `'allow'` once, `'allow_session'` (this exact call for the rest of the session), `'deny'`; or, with more
 * to say, `{ outcome: 'deny', reason }` (the model reads the reason in the tool result) and
 * `{ outcome: 'allow_session', rule }`, which allows this call and every later one the rule covers, such as
 * the prefix rule `bash(npm test:*)` (the rule must name the call's tool).
 */
export type ApprovalAnswer =
  | 'allow'
  | 'allow_session'
  | 'deny'
  | { outcome: 'deny'; reason: string }
  | { outcome: 'allow_session'; rule: string }
  /** For a plan (`exit_plan_mode`): accept it and continue in `mode` (plain `'allow'` means `default`). */
  | { outcome: 'allow'; mode: PermissionMode };

const detailedAnswer = z.union([
  z.strictObject({ outcome: z.literal('deny'), reason: z.string().trim().min(1) }),
  z.strictObject({ outcome: z.literal('allow_session'), rule: z.string().trim().min(1) }),
  z.strictObject({
    outcome: z.literal('allow'),
    mode: z.enum(permissionModes as [PermissionMode, ...PermissionMode[]]),
  }),
]);

/**
 * Answers a tool call that needs approval.
 * Contract: answers an `ApprovalAnswer` (a JavaScript approver may also answer synchronously: only the
 * value counts).
 * Fails closed: any other answer (`false`, `undefined`, `'DENY'`), a throw or a rejection denies the
 * call, and `approval.decided.reason` says why. `'manual'` means the host answers later through
 * `agent.approve()` / `agent.deny()` after the `approval.asked` event.
 */
export type Approver = ((request: ApprovalRequest) => Promise<ApprovalAnswer>) | 'manual';

export type ApprovalDeps = { agentId: string; approver: Approver | undefined };

type ApprovalInput = AgentKeyed & { callId: string; name: string; input: unknown };

/**
 * Asks the host's approver about one call and answers the batch with `tool.approve` or `tool.deny`.
 * With a `'manual'` approver it waits for the host to answer through the agent API instead.
 *
 * Fails closed: only an answer of exactly `'allow'` or `'allow_session'` (returned directly or through
 * a promise) lets the call run. Anything else denies, with the reason logged in `approval.decided`:
 * `'deny'`, any other value (`false`, `undefined`, `'DENY'`), a throw or a rejection.
 */
export function createApprovalActor(approvalOf: DependenciesOf<ApprovalDeps>) {
  return fromTask(
    async ({ agentKey, callId, name, input }: ApprovalInput): Promise<ToolBatchEvent | undefined> => {
      const { agentId, approver } = approvalOf(agentKey);
      // Nothing to report: the host answers through `agent.approve()` / `agent.deny()`.
      if (approver === undefined || approver === 'manual') return undefined;
      return answerEvent(callId, name, await approver({ agentId, callId, tool: name, input }));
    },
    (result, { callId }) =>
      result.ok ? result.value : denial(callId, `the approver failed (${messageOf(result.error)})`),
  );
}

function answerEvent(callId: string, name: string, answer: unknown): ToolBatchEvent {
  if (answer === 'allow') return { type: 'tool.approve', callId, by: 'host' };
  if (answer === 'allow_session') return { type: 'tool.approve', callId, by: 'host', remember: 'session' };
  if (answer === 'deny') return denial(callId, 'the host denied this call');
  const detailed = detailedAnswer.safeParse(answer);
  if (!detailed.success) {
    return denial(callId, `the approver answered ${describeValue(answer)}, not "allow" or "allow_session"`);
  }
  if (detailed.data.outcome === 'deny') return denial(callId, detailed.data.reason);
  if (detailed.data.outcome === 'allow') {
    if (name !== exitPlanModeName)
      return denial(callId, `a mode is named only when accepting a plan (${exitPlanModeName})`);
    return { type: 'tool.approve', callId, by: 'host', mode: detailed.data.mode };
  }
  const { rule } = detailed.data;
  const problem =
    ruleProblem(rule) ?? (parseRule(rule).tool === name ? undefined : `it does not name ${name}`);
  if (problem !== undefined)
    return denial(callId, `the approver's rule ${JSON.stringify(rule)} is unusable: ${problem}`);
  return { type: 'tool.approve', callId, by: 'host', remember: 'session', rule: rule.trim() };
}

function denial(callId: string, reason: string): ToolBatchEvent {
  return { type: 'tool.deny', callId, by: 'host', reason };
}
