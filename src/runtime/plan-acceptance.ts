import type { AgentPermissionGate } from '../permissions/gate.ts';
import type { PermissionMode } from '../permissions/modes.ts';
import type { SessionLog } from '../session/session-log.ts';
import type { AnyTool } from '../tools/define-tool.ts';
import { exitPlanModeTool } from '../tools/exit-plan-mode.ts';

/** What the model may do in each mode, told when a plan is accepted. */
const modeMeaning: Record<PermissionMode, string> = {
  plan: 'you may still only read.',
  default: 'you may read freely; edits and commands are put to the user.',
  'accept-edits': 'you may read and edit files; commands are put to the user.',
  bypass: 'you may read, edit and run commands without asking.',
};

/**
 * One agent's `exit_plan_mode` tool. It runs only once the host accepted the plan of its call: the mode
 * the host named (default `default`) is logged as `mode.changed` — the gate follows the log, so every
 * later decision, a resume and a replay see the new mode — and the model learns what it may do now.
 */
export function planAcceptanceTool(gate: AgentPermissionGate, log: () => SessionLog): AnyTool {
  return exitPlanModeTool((callId, plan) => {
    const from = gate.mode;
    const to = gate.modeAfterPlan(callId);
    log().append({ type: 'mode.changed', data: { from, to, by: 'plan', plan, callId } });
    return `The user accepted your plan. The permission mode is now ${to}: ${modeMeaning[to]} Carry out the plan now.`;
  });
}
