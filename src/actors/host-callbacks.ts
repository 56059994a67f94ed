import { fromCallback } from 'xstate';
import type { AgentEvent, SetupStage } from '../machines/agent.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { DependenciesOf } from './dependencies.ts';

/** Runs one setup stage (or its undo) through the given functions and reports the outcome as an event. */
export function createStageActor(
  depsOf: DependenciesOf<(stage: SetupStage) => Promise<{ toolNames?: string[]; systemHash?: string }>>,
) {
  return fromCallback<{ type: 'noop' }, AgentKeyed & { stage: SetupStage }>(({ input, sendBack }) => {
    const run = depsOf(input.agentKey);
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
  depsOf: DependenciesOf<{ undo: (stage: SetupStage) => Promise<void>; onError: (error: unknown) => void }>,
) {
  return fromCallback<{ type: 'noop' }, AgentKeyed & { stage: SetupStage }>(({ input, sendBack }) => {
    const { undo, onError } = depsOf(input.agentKey);
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
  depsOf: DependenciesOf<{ revoke: () => Promise<void>; onError: (error: unknown) => void }>,
) {
  return fromCallback<{ type: 'noop' }, AgentKeyed>(({ input, sendBack }) => {
    const { revoke, onError } = depsOf(input.agentKey);
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
