import { messageOf } from '../errors/describe-value.ts';
import type { OutputCheckedEvent, OutputCheckInput } from '../machines/turn-types.ts';
import type { DependenciesOf } from './dependencies.ts';
import { fromTask } from './from-task.ts';

/** How a final answer fared against the turn's output schema: `valid`, or why not in `error`. */
export type OutputVerdict = { valid: boolean; error?: string };

export type OutputCheckDeps = {
  /**
   * Checks the final answer of `input.step` (live: parsed and validated by the run's schema; in a replay:
   * the recorded verdict). Contract: may reject; a rejection refuses the answer.
   */
  check: (input: OutputCheckInput) => Promise<OutputVerdict>;
};

/**
 * The check of a typed turn's final answer as an actor: sends `output.checked` with the verdict. Fails
 * closed: a check that throws or rejects refuses the answer, with the reason the model then reads.
 */
export function createOutputCheckActor(depsOf: DependenciesOf<OutputCheckDeps>) {
  return fromTask(
    (input: OutputCheckInput) => depsOf(input.agentKey).check(input),
    (result): OutputCheckedEvent => {
      if (!result.ok)
        return {
          type: 'output.checked',
          valid: false,
          error: `the check failed: ${messageOf(result.error)}`,
        };
      const { valid, error } = result.value;
      return { type: 'output.checked', valid, ...(error !== undefined ? { error } : {}) };
    },
  );
}
