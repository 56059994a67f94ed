// The plan-mode tool's name on its own: the permission modes (and through them `agentchart --help`) need
// the name, not the tool, whose schema would load zod and the tool layer on every CLI start.

/** The name of the tool a model in plan mode calls with its plan. */
export const exitPlanModeToolName = 'exit_plan_mode';
