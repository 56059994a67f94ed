import { z } from 'zod/v4';
import { defineTool } from './define-tool.ts';
import { exitPlanModeToolName } from './exit-plan-mode-name.ts';

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
    name: exitPlanModeToolName,
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
