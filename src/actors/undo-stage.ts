import type { AgentEvent, SetupStage } from '../machines/agent.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { DependenciesOf } from './dependencies.ts';
import { fromTask, reportingFailure } from './from-task.ts';

export type UndoStageDeps = {
  undo: (stage: SetupStage) => Promise<void>;
  /** Told about an undo that failed. */
  onError: (error: unknown) => void;
};

/** Runs one undo of a rollback; an undo that fails is reported, and rollback goes on with the next one. */
export function createUndoStageActor(undoOf: DependenciesOf<UndoStageDeps>) {
  return fromTask(
    ({ agentKey, stage }: AgentKeyed & { stage: SetupStage }) => {
      const { undo, onError } = undoOf(agentKey);
      return reportingFailure(() => undo(stage), onError);
    },
    (_result, { stage }): AgentEvent => ({ type: 'undo.done', stage }),
  );
}
