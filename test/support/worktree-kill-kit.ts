// What the worktree SIGKILL test shares between the child process it kills and the process that resumes:
// an isolated agent on the file store whose scripted model writes a file in its worktree, then calls a
// tool that never returns (in the killed process) once the call is durable; resumed, it writes a second
// file and answers.
import { z } from 'zod';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { fileStore } from '../../src/session/file-store.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import { defineTool } from '../../src/tools/define-tool.ts';
import { counterIds, routedModel, stepIndex, tickingClock } from './crash-kit.ts';

/** The session id of the killed agent. */
export const killedSession = 'isolated';

/** Prints READY when it runs (its call is durable by then) and never returns: the test kills the process. */
const holdTool = (onHeld: () => void) =>
  defineTool({
    name: 'hold',
    description: 'Holds until the process is killed',
    access: 'none',
    input: z.object({}),
    run: () => {
      onHeld();
      return new Promise<string>(() => {});
    },
  });

const steps = [
  {
    toolCalls: [
      { id: 'w1', name: 'write_file', input: { path: 'shared.txt', content: 'before the kill\n' } },
    ],
  },
  { toolCalls: [{ id: 'h1', name: 'hold', input: {} }] },
  { toolCalls: [{ id: 'w2', name: 'write_file', input: { path: 'second.txt', content: 'after resume\n' } }] },
  { text: 'done' },
];

/** The system of either process: `onHeld` is the killed one's (the resumed one offers no `hold` that runs). */
export function worktreeKillSystem(options: { cwd: string; dir: string; onHeld?: () => void }): AgentSystem {
  const refuse = () => {
    throw new Error('hold ran in the resumed process: a call the crash cut short ran again');
  };
  return createAgentSystem({
    cwd: options.cwd,
    store: fileStore(options.dir),
    model: routedModel({}, (request) => steps[stepIndex(request)] ?? { text: 'done' }),
    tools: [...codingTools(), holdTool(options.onHeld ?? refuse)],
    ids: counterIds('k'),
    clock: tickingClock(),
    projectInstructions: false,
    permissionMode: 'bypass',
  });
}
