// What the plan-wait crash test shares between the child process it kills and the process that resumes:
// an agent in plan mode whose model plans, then (once the plan is accepted) writes a file.
import type { ApprovalAnswer, ApprovalRequest } from '../../src/actors/approval.ts';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { fileStore } from '../../src/session/file-store.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import { counterIds, routedModel, tickingClock } from './crash-kit.ts';

export const waitingPlan = '1. Write planned.txt';

const routes = {
  'plan, then write': [
    { text: 'My plan.', toolCalls: [{ id: 'p1', name: 'exit_plan_mode', input: { plan: waitingPlan } }] },
    {
      text: 'Writing.',
      toolCalls: [{ id: 'w1', name: 'write_file', input: { path: 'planned.txt', content: 'planned' } }],
    },
    { text: 'Done: planned.' },
  ],
};

/** The system both processes run: file store in `dir`, workspace `cwd`, plan mode, the host's approver. */
export function planWaitSystem(options: {
  dir: string;
  cwd: string;
  idPrefix: string;
  approve: (request: ApprovalRequest) => Promise<ApprovalAnswer>;
}): AgentSystem {
  return createAgentSystem({
    model: routedModel(routes),
    tools: codingTools(),
    store: fileStore(options.dir),
    cwd: options.cwd,
    ids: counterIds(options.idPrefix),
    clock: tickingClock(),
    projectInstructions: false,
    permissionMode: 'plan',
    approve: options.approve,
  });
}
