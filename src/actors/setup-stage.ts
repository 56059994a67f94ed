import type { AgentEvent, SetupStage } from '../machines/agent.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { HookDecidedData } from '../session/types.ts';
import type { DependenciesOf } from './dependencies.ts';
import { fromTask } from './from-task.ts';

/**
 * Runs the stages of creating an agent; what the tools stage reports goes into the agent's context.
 * Contract: `run`'s `signal` aborts when the agent is disposed while the stage runs: the MCP servers stop
 * starting (the stage fails) and the `sessionStart` hooks are stopped (the stage answers with what they
 * decided). Either way the chart then undoes what the stages did. `abortable` says whether a stage of
 * this agent has anything such a dispose could stop; the others get a signal that never aborts.
 */
export type StageRunner = {
  run: (
    stage: SetupStage,
    signal: AbortSignal,
  ) => Promise<{ toolNames?: string[]; systemHash?: string; sessionStart?: HookDecidedData[] }>;
  abortable: (stage: SetupStage) => boolean;
};

/**
 * Runs one setup stage and reports `setup.done` (with what the stage reported) or `setup.error`;
 * `setup.abort` from the chart (a dispose during creation) aborts the stage's signal.
 */
export function createSetupStageActor(stagesOf: DependenciesOf<StageRunner>) {
  return fromTask(
    ({ agentKey, stage }: AgentKeyed & { stage: SetupStage }, signal) =>
      stagesOf(agentKey).run(stage, signal),
    (result, { stage }): AgentEvent =>
      result.ok
        ? { type: 'setup.done', stage, ...result.value }
        : { type: 'setup.error', stage, error: result.error },
    {
      abortOn: ({ agentKey, stage }) =>
        stagesOf(agentKey).abortable(stage) ? ('setup.abort' as const) : undefined,
    },
  );
}
