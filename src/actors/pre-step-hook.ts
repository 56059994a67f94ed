import { fromCallback } from 'xstate';
import { describeValue, messageOf } from '../errors/describe-value.ts';
import type { HookDecidedData } from '../hooks/hook-types.ts';
import { foldBlock } from '../hooks/waterfall.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { TurnEvent } from '../machines/turn.ts';
import type { ToolsUpdate } from '../machines/turn-types.ts';
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

export type PreStepHookDeps = {
  agentId: string;
  hook: PreStepHook | undefined;
  /**
   * Refreshes what the next step's request is made of (the environment block, the tools of MCP servers
   * and of the permission mode) and says what it offers; `undefined` when nothing changed. `signal` aborts
   * when the step is cancelled: what was being gathered (`git status` for the environment) is stopped.
   * Contract: does not throw.
   */
  prepareStep?: (turn: number, step: number, signal: AbortSignal) => Promise<ToolsUpdate | undefined>;
  /**
   * The `preStep` hooks given as a list (docs/hooks-and-settings.md): asked after the single function
   * allows the step, as a waterfall whose decisions are logged; live they run, in a replay the log
   * answers. Never rejects.
   */
  consult: (turn: number, step: number, signal: AbortSignal) => Promise<HookDecidedData[]>;
};

/**
 * The work before a step: first the tool lists that changed are applied (the answer carries them, so the
 * turn logs them whatever the hook says), then the host's pre-step function runs. Only `undefined` from it
 * lets the step go on; `{ veto: string }` blocks the turn with that reason, and anything else (a throw, a
 * rejection, `{ veto: 5 }`, `false`) blocks it too, with a reason that says what the hook did. Then the
 * `preStep` hook list runs: a `block` vetoes the step with its reason. Stopping the actor (a cancel)
 * aborts the hooks that run.
 */
export function createPreStepHookActor(hookOf: DependenciesOf<PreStepHookDeps>) {
  type Input = AgentKeyed & { turn: number; step: number };
  return fromCallback<{ type: 'noop' }, Input>(({ input, sendBack }) => {
    const controller = new AbortController();
    let live = true;
    let running = true;
    preStepWork(hookOf(input.agentKey), input, controller.signal).then((event) => {
      running = false;
      if (live) sendBack(event);
    });
    return () => {
      live = false;
      // Work that has answered has nothing left to stop; an abort would only allocate a DOMException.
      if (running) controller.abort();
    };
  });
}

/** Never rejects: whatever fails becomes a veto (the single function) or a logged failure (the list). */
async function preStepWork(
  deps: PreStepHookDeps,
  { turn, step }: { turn: number; step: number },
  signal: AbortSignal,
): Promise<TurnEvent> {
  let update: { tools?: ToolsUpdate } = {};
  try {
    const tools = await deps.prepareStep?.(turn, step, signal);
    if (tools !== undefined) update = { tools };
    // Reading the answer is inside the try too: a proxy that throws on `.veto` blocks, never escapes.
    const answer = hookAnswer(await deps.hook?.({ agentId: deps.agentId, turn, step }));
    if (answer.type === 'hook.veto') return { ...answer, ...update };
  } catch (error) {
    return { type: 'hook.veto', reason: `pre-step hook failed: ${messageOf(error)}`, ...update };
  }
  const decisions = await deps
    .consult(turn, step, signal)
    .catch((error: unknown) => [
      { point: 'preStep' as const, hook: '(runtime)', outcome: 'error' as const, reason: messageOf(error) },
    ]);
  const logged = decisions.length > 0 ? { decisions } : {};
  const folded = foldBlock(decisions, '');
  if (folded.blocked)
    return { type: 'hook.veto', reason: folded.reason ?? 'blocked by a preStep hook', ...update, ...logged };
  return { type: 'hook.allow', ...update, ...logged };
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
