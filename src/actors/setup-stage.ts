import { fromCallback } from 'xstate';
import type { AgentEvent, SetupStage } from '../machines/agent.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { HookDecidedData } from '../session/types.ts';
import type { DependenciesOf } from './dependencies.ts';

/**
 * Runs one stage of creating an agent; what the tools stage reports goes into the agent's context.
 * `signal` aborts when the agent is disposed while the stage runs: work that only waits (the
 * `sessionStart` hooks) stops then, and the stage still answers, so the chart can undo what it did.
 */
export type RunStage = (
  stage: SetupStage,
  signal: AbortSignal,
) => Promise<{ toolNames?: string[]; systemHash?: string; sessionStart?: HookDecidedData[] }>;

/**
 * Runs one setup stage and reports `setup.done` (with what the stage reported) or `setup.error`.
 * `setup.abort` from the chart (a dispose during creation) aborts the stage's signal; stopping the actor
 * aborts it too, and then nothing is reported.
 */
export function createSetupStageActor(runStageOf: DependenciesOf<RunStage>) {
  type Input = AgentKeyed & { stage: SetupStage };
  return fromCallback<{ type: 'setup.abort' }, Input>(({ input, sendBack, receive }) => {
    const controller = new AbortController();
    let live = true;
    receive((event) => {
      if (event.type === 'setup.abort') controller.abort();
    });
    // Started on the next microtask: a synchronous throw is a failure like a rejection.
    Promise.resolve()
      .then(() => runStageOf(input.agentKey)(input.stage, controller.signal))
      .then(
        (value): AgentEvent => ({ type: 'setup.done', stage: input.stage, ...value }),
        (error: unknown): AgentEvent => ({ type: 'setup.error', stage: input.stage, error }),
      )
      .then((event) => {
        if (live) sendBack(event);
      });
    return () => {
      live = false;
      controller.abort();
    };
  });
}
