import { fromCallback } from 'xstate';
import { describeValue, messageOf } from '../errors/describe-value.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { TurnEvent } from '../machines/turn.ts';
import type { DependenciesOf } from './dependencies.ts';

/**
 * Runs before every step.
 * Contract: resolves with `undefined` to let the step run, or `{ veto: string }` to end the turn
 * `blocked` with that reason. Anything else (a throw, a rejection, `{ veto: 5 }`, `null`) blocks too,
 * with a reason that says what the hook did.
 */
export type PreStepHook = (context: {
  agentId: string;
  turn: number;
  step: number;
}) => Promise<undefined | { veto: string }>;

/**
 * Runs the host's pre-step hook. Only `undefined` lets the step go on; `{ veto: string }` blocks the
 * turn with that reason, and anything else (a throw, a rejection, `{ veto: 5 }`, `false`) blocks it too,
 * with a reason that says what the hook did.
 */
export function createPreStepHookActor(
  depsOf: DependenciesOf<{ agentId: string; hook: PreStepHook | undefined }>,
) {
  return fromCallback<{ type: 'noop' }, AgentKeyed & { turn: number; step: number }>(
    ({ input, sendBack }) => {
      const { agentId, hook } = depsOf(input.agentKey);
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
    },
  );
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
