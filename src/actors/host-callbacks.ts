import { fromCallback } from 'xstate';
import { describeValue, messageOf } from '../errors/describe-value.ts';
import type { AgentEvent, SetupStage } from '../machines/agent.ts';
import type { ToolBatchEvent } from '../machines/tool-batch.ts';
import type { TurnEvent } from '../machines/turn.ts';
import type { Approver, PreStepHook } from '../runtime/options.ts';
import type { Resolve } from './resolve.ts';

/**
 * Asks the host's approver about one call and answers the batch with `tool.approve` or `tool.deny`.
 * With a `'manual'` approver it waits for the host to answer through the agent API instead.
 *
 * Fails closed: only an answer of exactly `'allow'` or `'allow_session'` (returned directly or through
 * a promise) lets the call run. Anything else denies, with the reason logged in `approval.decided`:
 * `'deny'`, any other value (`false`, `undefined`, `'DENY'`), a throw or a rejection.
 */
export function createApprovalActor(depsOf: Resolve<{ agentId: string; approver: Approver | undefined }>) {
  return fromCallback<{ type: 'noop' }, { callId: string; name: string; input: unknown }>(
    ({ input, sendBack, self }) => {
      const { agentId, approver } = depsOf(self);
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

/**
 * Runs the host's pre-step hook. Only `undefined` lets the step go on; `{ veto: string }` blocks the
 * turn with that reason, and anything else (a throw, a rejection, `{ veto: 5 }`, `false`) blocks it too,
 * with a reason that says what the hook did.
 */
export function createPreStepHookActor(depsOf: Resolve<{ agentId: string; hook: PreStepHook | undefined }>) {
  return fromCallback<{ type: 'noop' }, { turn: number; step: number }>(({ input, sendBack, self }) => {
    const { agentId, hook } = depsOf(self);
    let live = true;
    const answer = (event: TurnEvent) => {
      if (live) sendBack(event);
    };
    Promise.resolve()
      .then(() => hook?.({ agentId, turn: input.turn, step: input.step }))
      // Reading the answer is inside the chain too: a proxy that throws on `.veto` blocks, never escapes.
      .then((result: unknown) => hookAnswer(result))
      .then(answer, (error: unknown) =>
        answer({ type: 'hook.veto', reason: `pre-step hook failed: ${messageOf(error)}` }),
      );
    return () => {
      live = false;
    };
  });
}

function hookAnswer(result: unknown): TurnEvent {
  if (result === undefined) return { type: 'hook.allow' };
  const veto =
    typeof result === 'object' && result !== null ? (result as { veto?: unknown }).veto : undefined;
  if (typeof veto === 'string') return { type: 'hook.veto', reason: veto };
  const detail = veto === undefined ? '' : ` with veto ${describeValue(veto)}`;
  return {
    type: 'hook.veto',
    reason: `pre-step hook answered ${describeValue(result)}${detail}, not undefined or { veto: string }`,
  };
}

/** Runs one setup stage (or its undo) through the given functions and reports the outcome as an event. */
export function createStageActor(
  depsOf: Resolve<(stage: SetupStage) => Promise<{ toolNames?: string[]; systemHash?: string }>>,
) {
  return fromCallback<{ type: 'noop' }, { stage: SetupStage }>(({ input, sendBack, self }) => {
    const run = depsOf(self);
    let live = true;
    const answer = (event: AgentEvent) => {
      if (live) sendBack(event);
    };
    Promise.resolve()
      .then(() => run(input.stage))
      .then(
        (result) => answer({ type: 'setup.done', stage: input.stage, ...result }),
        (error: unknown) => answer({ type: 'setup.error', stage: input.stage, error }),
      );
    return () => {
      live = false;
    };
  });
}

/** Runs an undo; an undo that fails is reported to the host but rollback goes on with the next one. */
export function createUndoActor(
  depsOf: Resolve<{ undo: (stage: SetupStage) => Promise<void>; onError: (error: unknown) => void }>,
) {
  return fromCallback<{ type: 'noop' }, { stage: SetupStage }>(({ input, sendBack, self }) => {
    const { undo, onError } = depsOf(self);
    let live = true;
    Promise.resolve()
      .then(() => undo(input.stage))
      .catch(onError)
      .then(() => {
        if (live) sendBack({ type: 'undo.done', stage: input.stage } satisfies AgentEvent);
      });
    return () => {
      live = false;
    };
  });
}

/** The last dispose stage: unregister and close; reports `revoke.done` whatever happens. */
export function createRevokeActor(
  depsOf: Resolve<{ revoke: () => Promise<void>; onError: (error: unknown) => void }>,
) {
  return fromCallback<{ type: 'noop' }, Record<string, never>>(({ sendBack, self }) => {
    const { revoke, onError } = depsOf(self);
    let live = true;
    Promise.resolve()
      .then(revoke)
      .catch(onError)
      .then(() => {
        if (live) sendBack({ type: 'revoke.done' } satisfies AgentEvent);
      });
    return () => {
      live = false;
    };
  });
}
