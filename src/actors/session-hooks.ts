// The session's own hook points. `sessionStart` runs as part of the setup stage that publishes the agent;
// the agent chart logs its decisions, and the context its hooks add (a `user.message` on the inject
// channel, which the model reads before the session's next input), before its first turn, so a replay
// logs the same from the recorded decisions. `sessionEnd` is the wait of the agent's `disposing.endingSession` state: bounded in time, and
// whatever happens it answers, so dispose goes on.

import { extended } from '../core/extended.ts';
import { timeLimit } from '../core/time-limit.ts';
import { messageOf } from '../errors/describe-value.ts';
import type { HookDecidedData } from '../hooks/hook-types.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { DependenciesOf } from './dependencies.ts';
import { base, failed, type HookDeps, hookWait } from './hook.ts';

/** How long dispose waits for the `sessionEnd` hooks altogether; a hook still running then is stopped. */
export const sessionEndLimitMs = 10_000;

export type SessionStartSource = 'startup' | 'resume' | 'fork';

/**
 * Asks the `sessionStart` hooks and returns what they decided, for the agent chart to log (with the context
 * they added) before its first turn. `signal` aborts when the agent is disposed during creation: the hooks
 * are stopped and the decisions so far returned (the rollback logs none). Never rejects: a consultation
 * that fails is one `error` decision.
 */
export async function runSessionStart(
  deps: HookDeps,
  source: SessionStartSource,
  signal: AbortSignal,
): Promise<HookDecidedData[]> {
  // A subagent's session is part of its parent's (Claude Code asks SubagentStop, not the session hooks).
  if (deps.parent !== undefined) return [];
  const told = extended(base(deps, 'sessionStart', { turn: 0, step: 0 }), { source });
  try {
    // Claude Code's SessionStart matcher selects by source (`startup`, `resume`, ...).
    return await deps.consult('sessionStart')(told, { matchOn: source, value: {} }, signal);
  } catch (error) {
    return [failed('sessionStart', messageOf(error))];
  }
}

/** The `sessionEnd` wait: observers told the agent is being disposed, within `sessionEndLimitMs`. */
export function createSessionEndHookActor(depsOf: DependenciesOf<HookDeps>) {
  type Event = { type: 'hook.sessionEnd'; decisions: HookDecidedData[] };
  return hookWait<AgentKeyed, Event>(
    depsOf,
    async (deps, _input, signal) => {
      if (deps.parent !== undefined) return { type: 'hook.sessionEnd', decisions: [] };
      const told = extended(base(deps, 'sessionEnd', { turn: 0, step: 0 }), { reason: 'disposed' });
      const bounded = timeLimit(signal, sessionEndLimitMs);
      try {
        return {
          type: 'hook.sessionEnd',
          decisions: await deps.consult('sessionEnd')(told, { value: {} }, bounded.signal),
        };
      } finally {
        bounded.release();
      }
    },
    (_input, reason) => ({ type: 'hook.sessionEnd', decisions: [failed('sessionEnd', reason)] }),
  );
}
