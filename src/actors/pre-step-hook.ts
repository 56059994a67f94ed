import { describeValue, messageOf } from '../errors/describe-value.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { TurnEvent } from '../machines/turn.ts';
import type { ToolsUpdate } from '../machines/turn-types.ts';
import type { DependenciesOf } from './dependencies.ts';
import { fromTask } from './from-task.ts';

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

export type PreStepHookDeps = {
  agentId: string;
  hook: PreStepHook | undefined;
  /**
   * Refreshes what the next step's request is made of (the environment block, the tools of MCP servers
   * and of the permission mode) and says what it offers; `undefined` when nothing changed.
   * Contract: does not throw.
   */
  prepareStep?: (turn: number, step: number) => Promise<ToolsUpdate | undefined>;
};

/**
 * The work before a step: first the tool lists that changed are applied (the answer carries them, so the
 * turn logs them whatever the hook says), then the host's pre-step hook runs. Only `undefined` from the
 * hook lets the step go on; `{ veto: string }` blocks the turn with that reason, and anything else (a
 * throw, a rejection, `{ veto: 5 }`, `false`) blocks it too, with a reason that says what the hook did.
 */
export function createPreStepHookActor(hookOf: DependenciesOf<PreStepHookDeps>) {
  return fromTask(
    async ({ agentKey, turn, step }: AgentKeyed & { turn: number; step: number }): Promise<TurnEvent> => {
      const { agentId, hook, prepareStep } = hookOf(agentKey);
      const tools = await prepareStep?.(turn, step);
      const update = tools === undefined ? {} : { tools };
      try {
        // Reading the answer is inside the try too: a proxy that throws on `.veto` blocks, never escapes.
        return { ...hookAnswer(await hook?.({ agentId, turn, step })), ...update };
      } catch (error) {
        return { type: 'hook.veto', reason: `pre-step hook failed: ${messageOf(error)}`, ...update };
      }
    },
    (result): TurnEvent =>
      result.ok
        ? result.value
        : { type: 'hook.veto', reason: `pre-step hook failed: ${messageOf(result.error)}` },
  );
}

function hookAnswer(result: unknown): TurnEvent & { type: 'hook.allow' | 'hook.veto' } {
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
