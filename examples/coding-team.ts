// A coding team: three agents change the same repository side by side, each in a git worktree of its own
// (a branch `agentchart/<task>`), and a reviewer starts once all three are done, with their results in
// its prompt. Nothing merges by itself: the program prints each kept branch and how to look at it.
// Run it inside a git repository with a commit:
//   OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=qwen3:8b npx tsx examples/coding-team.ts
import { codingTools, createAgentSystem } from 'agentchart';
import { openai } from 'agentchart/openai';

const { OPENAI_BASE_URL, OPENAI_MODEL = 'qwen3:8b', OPENAI_API_KEY = 'local' } = process.env;
const system = createAgentSystem({
  model: openai({ baseURL: OPENAI_BASE_URL, model: OPENAI_MODEL, apiKey: OPENAI_API_KEY }),
  tools: codingTools(),
  permissionMode: 'accept-edits', // file edits go ahead (each in its own worktree)
  approve: 'deny', // nobody watches: a command that would ask is refused
});
const isolation = 'worktree' as const;
const job = system.runJob({
  concurrency: 3,
  tasks: [
    { id: 'greet', prompt: 'In greet.js, make greet(name) return "Hello, <name>!".', isolation },
    { id: 'sum', prompt: 'In sum.js, make sum(...numbers) add all its arguments.', isolation },
    { id: 'usage', prompt: 'In README.md, add a short Usage section for greet and sum.', isolation },
    {
      id: 'review',
      prompt: 'Review the three changes described below and say in one line which to merge first.',
      dependsOn: ['greet', 'sum', 'usage'],
    },
  ],
  onProgress: (p) => {
    if (p.type === 'task.finished') console.log(`done: ${p.result.sessionId} (${p.waiting} waiting)`);
  },
});
for (const { sessionId, reason, text, worktree } of await job.result) {
  if (!worktree) console.log(`${sessionId} ${reason}: ${text}`);
  else if (!worktree.kept) console.log(`${sessionId} ${reason}: changed nothing`);
  else {
    console.log(`${sessionId} ${reason} on ${worktree.branch}: ${worktree.filesChanged.join(', ')}`);
    console.log(`  review: git diff ${worktree.baseCommit.slice(0, 7)}..${worktree.branch}`);
  }
}
await system.dispose();
