import { fromCallback } from 'xstate';
import type { AgentEvent, SetupStage } from '../machines/agent.ts';
import type { ToolBatchEvent } from '../machines/tool-batch.ts';
import type { TurnEvent } from '../machines/turn.ts';
import type { Approver, PreStepHook } from '../runtime/options.ts';
import type { Resolve } from './resolve.ts';

/**
 * Asks the host's approver about one call and answers the batch with `tool.approve` or `tool.deny`.
 * With a `'manual'` approver it waits for the host to answer through the agent API instead.
 */
export function createApprovalActor(depsOf: Resolve<{ agentId: string; approver: Approver | undefined }>) {
  return fromCallback<{ type: 'noop' }, { callId: string; name: string; input: unknown }>(
    ({ input, sendBack, self }) => {
      const { agentId, approver } = depsOf(self);
      if (approver === undefined || approver === 'manual') return;
      let live = true;
      const answer = (event: ToolBatchEvent) => {
        if (live) sendBack(event);
      };
      approver({ agentId, callId: input.callId, tool: input.name, input: input.input }).then(
        (decision) =>
          decision === 'deny'
            ? answer({
                type: 'tool.deny',
                callId: input.callId,
                reason: 'the host denied this call',
                by: 'host',
              })
            : answer({
                type: 'tool.approve',
                callId: input.callId,
                by: 'host',
                ...(decision === 'allow_session' ? { remember: 'session' as const } : {}),
              }),
        (error: unknown) =>
          answer({
            type: 'tool.deny',
            callId: input.callId,
            by: 'host',
            reason: `the approver failed (${error instanceof Error ? error.message : String(error)})`,
          }),
      );
      return () => {
        live = false;
      };
    },
  );
}

/** Runs the host's pre-step hook; a veto or a failure of the hook blocks the turn. */
export function createPreStepHookActor(depsOf: Resolve<{ agentId: string; hook: PreStepHook | undefined }>) {
  return fromCallback<{ type: 'noop' }, { turn: number; step: number }>(({ input, sendBack, self }) => {
    const { agentId, hook } = depsOf(self);
    let live = true;
    const answer = (event: TurnEvent) => {
      if (live) sendBack(event);
    };
    Promise.resolve()
      .then(() => hook?.({ agentId, turn: input.turn, step: input.step }))
      .then(
        (result) =>
          answer(
            result && 'veto' in result ? { type: 'hook.veto', reason: result.veto } : { type: 'hook.allow' },
          ),
        (error: unknown) =>
          answer({
            type: 'hook.veto',
            reason: `pre-step hook failed: ${error instanceof Error ? error.message : String(error)}`,
          }),
      );
    return () => {
      live = false;
    };
  });
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
