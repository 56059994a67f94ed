// How one subagent's call runs beside the tree (subagents.ts): the child's run (typed when the tool asked
// for output), and a parent's cancel passed on to the child. The link in the parent's session is logged by
// `logSpawned` (child-launch.ts), shared with background children.
import { AgentStateError } from '../errors/agent-state-error.ts';
import { emptyUsage } from '../providers/types.ts';
import type { SubagentResult } from '../tools/define-tool.ts';
import type { Agent, RunResult } from './agent-handle.ts';

/** The child's latest turn: the one a resumed child continues, or ended in. */
export function lastTurnOf(child: Agent): number {
  return child.log().reduce((highest, event) => Math.max(highest, event.turn ?? 0), 0);
}

export async function runChild(
  child: Agent,
  work: () => Promise<RunResult>,
  signal: AbortSignal,
): Promise<SubagentResult> {
  if (signal.aborted) return { sessionId: child.id, reason: 'canceled', text: '', usage: emptyUsage };
  const onAbort = () => {
    try {
      child.cancel('parent');
    } catch (error) {
      // A child that is already going away needs no cancel; anything else is a real fault.
      if (!AgentStateError.isInstance(error)) throw error;
    }
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const result = await work();
    const { reason, text, usage, output } = result;
    return { sessionId: child.id, reason, text, usage, ...(output !== undefined ? { output } : {}) };
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
