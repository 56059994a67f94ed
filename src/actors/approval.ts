import { fromCallback } from 'xstate';
import { describeValue, messageOf } from '../errors/describe-value.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { ToolBatchEvent } from '../machines/tool-batch.ts';
import type { DependenciesOf } from './dependencies.ts';

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

/**
 * Asks the host's approver about one call and answers the batch with `tool.approve` or `tool.deny`.
 * With a `'manual'` approver it waits for the host to answer through the agent API instead.
 *
 * Fails closed: only an answer of exactly `'allow'` or `'allow_session'` (returned directly or through
 * a promise) lets the call run. Anything else denies, with the reason logged in `approval.decided`:
 * `'deny'`, any other value (`false`, `undefined`, `'DENY'`), a throw or a rejection.
 */
export function createApprovalActor(
  depsOf: DependenciesOf<{ agentId: string; approver: Approver | undefined }>,
) {
  return fromCallback<{ type: 'noop' }, AgentKeyed & { callId: string; name: string; input: unknown }>(
    ({ input, sendBack }) => {
      const { agentId, approver } = depsOf(input.agentKey);
      if (approver === undefined || approver === 'manual') return;
      let live = true;
      const { callId } = input;
      const deny = (reason: string) => {
        if (live) sendBack({ type: 'tool.deny', callId, by: 'host', reason } satisfies ToolBatchEvent);
      };
      // The approver runs inside the promise chain, so a synchronous throw denies like a rejection.
      Promise.resolve()
        .then(() => approver({ agentId, callId, tool: input.name, input: input.input }))
        .then(
          (answer: unknown) => {
            if (answer === 'allow' || answer === 'allow_session') {
              if (!live) return;
              sendBack({
                type: 'tool.approve',
                callId,
                by: 'host',
                ...(answer === 'allow_session' ? { remember: 'session' as const } : {}),
              } satisfies ToolBatchEvent);
            } else if (answer === 'deny') deny('the host denied this call');
            else deny(`the approver answered ${describeValue(answer)}, not "allow" or "allow_session"`);
          },
          (error: unknown) => deny(`the approver failed (${messageOf(error)})`),
        );
      return () => {
        live = false;
      };
    },
  );
}
