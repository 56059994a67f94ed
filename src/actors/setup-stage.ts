import type { AgentEvent, SetupStage } from '../machines/agent.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { HookDecidedData } from '../session/types.ts';
import type { DependenciesOf } from './dependencies.ts';
import { fromTask } from './from-task.ts';

/**
 * Runs one stage of creating an agent; what the tools stage reports goes into the agent's context.
 * `signal` aborts when the agent is disposed while the stage runs: the MCP servers stop starting (the
 * stage fails) and the `sessionStart` hooks are stopped (the stage answers with what they decided).
 * Either way the chart then undoes what the stages did.
 */
export type RunStage = (
  stage: SetupStage,
  signal: AbortSignal,
) => Promise<{ toolNames?: string[]; systemHash?: string; sessionStart?: HookDecidedData[] }>;

/**
 * Runs one setup stage and reports `setup.done` (with what the stage reported) or `setup.error`;
 * `setup.abort` from the chart (a dispose during creation) aborts the stage's signal.
 */
export function createSetupStageActor(runStageOf: DependenciesOf<RunStage>) {
  return fromTask(
    ({ agentKey, stage }: AgentKeyed & { stage: SetupStage }, signal) => runStageOf(agentKey)(stage, signal),
    (result, { stage }): AgentEvent =>
      result.ok
        ? { type: 'setup.done', stage, ...result.value }
        : { type: 'setup.error', stage, error: result.error },
    { abortOn: 'setup.abort' },
  );
}
