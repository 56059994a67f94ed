import { describeValue, messageOf } from '../errors/describe-value.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { ToolBatchEvent } from '../machines/tool-batch.ts';
import type { DependenciesOf } from './dependencies.ts';
import { fromTask } from './from-task.ts';

export type ApprovalRequest = { agentId: string; callId: string; tool: string; input: unknown };
export type ApprovalAnswer = 'allow' | 'allow_session' | 'deny';

/**
 * Answers a tool call that needs approval.
 * Contract: answers exactly `'allow'`, `'allow_session'` or `'deny'` (a JavaScript approver may also
 * answer synchronously: only the value counts).
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
      return answerEvent(callId, await approver({ agentId, callId, tool: name, input }));
    },
    (result, { callId }) =>
      result.ok ? result.value : denial(callId, `the approver failed (${messageOf(result.error)})`),
  );
}

function answerEvent(callId: string, answer: unknown): ToolBatchEvent {
  if (answer === 'allow') return { type: 'tool.approve', callId, by: 'host' };
  if (answer === 'allow_session') return { type: 'tool.approve', callId, by: 'host', remember: 'session' };
  if (answer === 'deny') return denial(callId, 'the host denied this call');
  return denial(callId, `the approver answered ${describeValue(answer)}, not "allow" or "allow_session"`);
}

function denial(callId: string, reason: string): ToolBatchEvent {
  return { type: 'tool.deny', callId, by: 'host', reason };
}
