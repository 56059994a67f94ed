// Plan mode in one place: the `exit_plan_mode` tool a model in plan mode calls with its plan, and what
// accepting a plan does. Which tools plan mode offers and how its calls are decided are in `modes.ts`
// and `gate.ts`; the approval actor only lets the host (never a hook) accept a plan.
import { z } from 'zod/v4';
import type { SessionLog } from '../session/session-log.ts';
import { type AnyTool, defineTool } from '../tools/define-tool.ts';
import type { AgentPermissionGate } from './gate.ts';
import { exitPlanModeName, type PermissionMode } from './modes.ts';

const input = z.object({
  plan: z
    .string()
    .min(1)
    .describe(
      'The plan, in Markdown: the steps you will take and the files you will change. Keep it concise.',
    ),
});

/**
 * `exit_plan_mode{plan}`: offered to an agent in plan mode. The call is always put to the host, who
 * accepts the plan (naming the permission mode to continue in) or denies it with a reason. `accept` runs
 * only after the host accepted: it switches the agent's mode (logging `mode.changed`) and says what the
 * model may do now.
 * Contract: `accept` does not throw; it returns the text of the tool result.
 */
export function exitPlanModeTool(accept: (callId: string, plan: string) => string) {
  return defineTool({
    name: exitPlanModeName,
    description:
      'You are in plan mode: you may read and search, but not edit files or run commands. When you have a ' +
      'plan for the task, call this tool with it; the user reviews it. If they accept, your permission ' +
      'mode changes and you carry out the plan in the same turn. If they deny it, the result says why: ' +
      'stay in plan mode, revise the plan and call this tool again. Only call it for tasks that change ' +
      'the workspace, not for questions you can answer by reading.',
    input,
    access: 'none',
    run: async ({ plan }, ctx) => accept(ctx.callId, plan),
  });
}

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
