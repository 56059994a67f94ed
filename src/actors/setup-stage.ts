import type { AgentEvent, SetupStage } from '../machines/agent.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { HookDecidedData } from '../session/types.ts';
import type { DependenciesOf } from './dependencies.ts';
import { fromTask } from './from-task.ts';

/** Runs one stage of creating an agent; what the tools stage reports goes into the agent's context. */
export type RunStage = (
  stage: SetupStage,
) => Promise<{ toolNames?: string[]; systemHash?: string; sessionStart?: HookDecidedData[] }>;

/** Runs one setup stage and reports `setup.done` (with what the stage reported) or `setup.error`. */
export function createSetupStageActor(runStageOf: DependenciesOf<RunStage>) {
  return fromTask(
    ({ agentKey, stage }: AgentKeyed & { stage: SetupStage }) => runStageOf(agentKey)(stage),
    (result, { stage }): AgentEvent =>
      result.ok
        ? { type: 'setup.done', stage, ...result.value }
        : { type: 'setup.error', stage, error: result.error },
  );
}
