import { fromCallback } from 'xstate';
import type { AgentEvent, SetupStage } from '../machines/agent.ts';
import type { Resolve } from './resolve.ts';

/** Runs one setup stage (or its undo) through the given functions and reports the outcome as an event. */
export function createStageActor(
  depsOf: Resolve<(stage: SetupStage) => Promise<{ toolNames?: string[]; systemHash?: string }>>,
) {
  return fromCallback<{ type: 'noop' }, { stage: SetupStage }>(({ input, sendBack, self }) => {
    const run = depsOf(self);
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
  depsOf: Resolve<{ undo: (stage: SetupStage) => Promise<void>; onError: (error: unknown) => void }>,
) {
  return fromCallback<{ type: 'noop' }, { stage: SetupStage }>(({ input, sendBack, self }) => {
    const { undo, onError } = depsOf(self);
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
  depsOf: Resolve<{ revoke: () => Promise<void>; onError: (error: unknown) => void }>,
) {
  return fromCallback<{ type: 'noop' }, Record<string, never>>(({ sendBack, self }) => {
    const { revoke, onError } = depsOf(self);
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
