// A live system for the inspector's board (its browser test and `npm run screenshot`): a parent whose `task`
// subagent waits for approval of a write, an agent running a real bash command that waits for a file, and a
// job of four tasks (one done, one failed, one waiting for approval of a write, one not started yet).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApprovalAnswer, ApprovalRequest } from '../../src/actors/approval.ts';
import type { Clock } from '../../src/core/clock.ts';
import type { Agent } from '../../src/runtime/agent-handle.ts';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { Job } from '../../src/runtime/jobs/run-job.ts';
import { fileStore } from '../../src/session/file-store.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import { taskTool } from '../../src/tools/task.ts';
import { counterIds, routedModel, until } from './crash-kit.ts';

/** The bash command the runner waits in: it ends once the file `release` exists in the workspace. */
export const waitingCommand = 'until [ -e release ]; do sleep 0.05; done; echo tests passed';
const write = (id: string, path: string) => ({ id, name: 'write_file', input: { path, content: path } });
const model = routedModel({
  'Fix the failing tests\nin src/': [
    { toolCalls: [{ id: 't1', name: 'task', input: { description: 'Write the notes', prompt: 'notes' } }] },
    { text: 'The helper wrote them.' },
  ],
  notes: [{ toolCalls: [write('w1', 'notes.txt')] }, { text: 'notes written' }],
  'Run the test suite': [
    { toolCalls: [{ id: 'b1', name: 'bash', input: { command: waitingCommand } }] },
    { text: 'Green.' },
  ],
  'Summarise README.md': [{ text: 'A summary.' }],
  'Translate docs/intro.md': [{ error: { kind: 'bad_request', message: 'refused' } }],
  'Write the changelog': [{ toolCalls: [write('w2', 'CHANGELOG.md')] }, { text: 'Written.' }],
  'Tag the release': [{ text: 'Tagged.' }],
});

export type BoardRun = {
  parent: Agent;
  runner: Agent;
  job: Job;
  /** Answers every write waiting for approval, and lets the bash command end. */
  release(): Promise<void>;
};

/**
 * The system in `dir` (sessions) and `cwd` (workspace), and `start`, which starts the run and returns once
 * every agent is where it waits. (A live inspector sees agents that end only while a page is open: open it
 * before `start` to see their rows; the job's line counts them either way.)
 */
export function boardRun(options: { dir: string; cwd: string; clock?: Clock }): {
  system: AgentSystem;
  start(): Promise<BoardRun>;
} {
  const held: Array<() => void> = [];
  const approve = (request: ApprovalRequest) =>
    request.tool === 'bash'
      ? Promise.resolve<ApprovalAnswer>('allow')
      : new Promise<ApprovalAnswer>((resolve) => held.push(() => resolve('allow')));
  const system = createAgentSystem({
    model: { ...model, prices: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } },
    tools: [...codingTools(), taskTool()],
    store: fileStore(options.dir),
    cwd: options.cwd,
    ids: counterIds(),
    ...(options.clock ? { clock: options.clock } : {}),
    projectInstructions: false,
    permissionMode: 'default',
    approve,
  });
  return { system, start: () => startRun(system, held, options.cwd) };
}

async function startRun(system: AgentSystem, held: Array<() => void>, cwd: string): Promise<BoardRun> {
  const parent = await system.createAgent({ id: 'parent' });
  const runner = await system.createAgent({ id: 'runner' });
  void parent.run('Fix the failing tests\nin src/');
  void runner.run('Run the test suite');
  const tasks = ['Summarise README.md', 'Translate docs/intro.md', 'Write the changelog', 'Tag the release'];
  const job = system.runJob({ tasks: tasks.map((prompt) => ({ prompt })), concurrency: 1 });
  await until(() => held.length === 2, 'the two writes waiting for approval', 20_000);
  await until(
    () => runner.log().some((event) => event.type === 'tool.started'),
    'the bash command running',
    20_000,
  );
  return {
    parent,
    runner,
    job,
    async release() {
      await writeFile(join(cwd, 'release'), '');
      for (const answer of held.splice(0)) answer();
    },
  };
}
