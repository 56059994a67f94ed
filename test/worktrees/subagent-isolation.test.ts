// An agent type with `isolation: 'worktree'`: each background child of that type works in a git worktree of
// its own (its tools and session.start say so), while its parent works in the repository's checkout.
import { readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/providers/types.ts';
import { backgroundAgentTools } from '../../src/tools/background-agents.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import { routedModel, stepIndex } from '../support/crash-kit.ts';
import { agentBranches, gitIn, initRepository } from '../support/git-repo.ts';
import { call, useSystems } from '../support/mail-kit.ts';
import { useTempFolders } from '../support/temp-folders.ts';

const tempFolder = useTempFolders('agentchart-subagent-worktree');
const systemFor = useSystems();

/** A parent that starts one editor, says it waits, and answers once the editor reported. */
const supervise = (request: ModelRequest) => {
  const step = stepIndex(request);
  if (step === 0) return { toolCalls: [call('spawn_agent', { agent_type: 'editor', prompt: 'edit' })] };
  return { text: step === 1 ? 'Waiting for the editor.' : 'Got it.' };
};

describe('subagents with isolation', () => {
  it('a child of an isolated agent type edits in its own worktree, on its own branch', async () => {
    const repository = await realpath(await tempFolder('repo'));
    const base = await initRepository(repository, { 'shared.txt': 'original\n' });
    const edit = [
      { toolCalls: [call('write_file', { path: 'shared.txt', content: 'from the child\n' })] },
      { text: 'Edited.' },
    ];
    const tools = [
      ...codingTools(),
      ...backgroundAgentTools({
        agentTypes: { editor: { description: 'Edits files.', isolation: 'worktree' } },
      }),
    ];
    const system = systemFor({ cwd: repository, model: routedModel({ supervise, edit }), tools });
    const parent = await system.createAgent({ id: 'parent' });
    expect(await parent.run('supervise')).toMatchObject({ reason: 'completed', text: 'Got it.' });
    const [child] = parent.children();
    await system.dispose();
    const branch = `agentchart/${child!.id}`;
    expect(await agentBranches(repository)).toEqual([branch]);
    expect(await gitIn(repository, 'show', `${branch}:shared.txt`)).toBe('from the child\n');
    expect(await readFile(join(repository, 'shared.txt'), 'utf8')).toBe('original\n');
    const { events } = await system.store.load(child!.id);
    const config = events[0]!.data.config as Record<string, unknown>;
    const path = join(repository, '.agentchart', 'worktrees', child!.id);
    expect([config.cwd, config.worktree]).toEqual([path, { repository, path, branch, baseCommit: base }]);
  });
});
