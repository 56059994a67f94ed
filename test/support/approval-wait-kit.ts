// What the durable-wait crash suite shares between the child process it kills and the process that resumes:
// the scenarios (a scripted model routed by conversation, so both processes answer alike) and the system.
import type { ApprovalAnswer, ApprovalRequest } from '../../src/actors/approval.ts';
import type { ScriptStep } from '../../src/providers/scripted.ts';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { fileStore } from '../../src/session/file-store.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import { taskTool } from '../../src/tools/task.ts';
import { counterIds, echoTool, routedModel, tickingClock } from './crash-kit.ts';

const write = (id: string, path: string) => ({ id, name: 'write_file', input: { path, content: path } });
const echo = (id: string) => ({ id, name: 'echo', input: { text: id } });
const task = (id: string, prompt: string) => ({ id, name: 'task', input: { description: prompt, prompt } });

export type Scenario = {
  /** The first message of the session the child process runs. */
  prompt: string;
  /** How many questions the host is asked before the child is killed. */
  questions: number;
};

/** Where the kill comes: the session is waiting for a person at each of these. */
export const scenarios = {
  /** The first call of a batch waits; the call after it has not begun. */
  'first-call': { prompt: 'first call waits', questions: 1 },
  /** Two calls finished (their results are logged), then the third waits. */
  'later-call': { prompt: 'later call waits', questions: 1 },
  /** Two `task` calls run side by side and both subagents wait: two calls of the batch wait at once. */
  'two-calls': { prompt: 'two calls wait', questions: 2 },
  /** One `task` call whose subagent waits for approval. */
  subagent: { prompt: 'subagent waits', questions: 1 },
} satisfies Record<string, Scenario>;

export type ScenarioName = keyof typeof scenarios;

const routes: Record<string, ScriptStep[]> = {
  'first call waits': [
    { text: 'Writing first.', toolCalls: [write('w1', 'a.txt'), echo('e1')] },
    { text: 'Done: first call.' },
  ],
  'later call waits': [
    { text: 'Echo twice, then write.', toolCalls: [echo('e1'), echo('e2'), write('w1', 'b.txt')] },
    { text: 'Done: later call.' },
  ],
  'two calls wait': [
    { text: 'Two helpers.', toolCalls: [task('t1', 'helper one'), task('t2', 'helper two')] },
    { text: 'Done: both helpers.' },
  ],
  'subagent waits': [
    { text: 'One helper.', toolCalls: [task('t1', 'helper solo')] },
    { text: 'Done: helper.' },
  ],
  'helper one': [
    { text: 'Helper one writes.', toolCalls: [write('h1', 'one.txt')] },
    { text: 'one written' },
  ],
  'helper two': [
    { text: 'Helper two writes.', toolCalls: [write('h2', 'two.txt')] },
    { text: 'two written' },
  ],
  'helper solo': [{ text: 'Helper writes.', toolCalls: [write('h3', 'solo.txt')] }, { text: 'solo written' }],
};

/**
 * The system both processes run: file store in `dir`, workspace `cwd`, mode `default` (writes ask), and the
 * host's approver (none: headless). Ids are prefixed per process so the two never collide.
 */
export function waitSystem(options: {
  dir: string;
  cwd: string;
  idPrefix: string;
  approve?: (request: ApprovalRequest) => Promise<ApprovalAnswer>;
}): AgentSystem {
  return createAgentSystem({
    model: routedModel(routes),
    tools: [echoTool, ...codingTools(), taskTool()],
    store: fileStore(options.dir),
    cwd: options.cwd,
    ids: counterIds(options.idPrefix),
    clock: tickingClock(),
    projectInstructions: false,
    permissionMode: 'default',
    // Without a host to ask, headless on purpose: what asks is denied.
    approve: options.approve ?? 'deny',
  });
}
