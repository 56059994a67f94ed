// Instruction files through the library: the system prompt a scripted model receives, what `session.start`
// records, and that resume and replay use the recording, not the files on disk now.
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertSameLog, createAgentSystem } from '../../src/index.ts';
import { scripted } from '../../src/providers/scripted.ts';
import { replaySession } from '../../src/replay/replay-session.ts';
import { memoryStore } from '../../src/session/memory-store.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import { counterIds, tickingClock } from '../support/crash-kit.ts';
import { copyFixture, fixtureText, instructionsIntro as intro } from '../tools/instruction-fixtures.ts';
import { writeFiles } from '../tools/workspace-fixture.ts';

let base: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'agentchart-instructions-')));
});
afterEach(() => rm(base, { recursive: true, force: true }));

const outsideProblem = "it is outside the repository and the user's ~/.claude and ~/.agentchart";

/** The Tresjs/tres monorepo, a user's file, and a local file of the package with two imports. */
async function monorepo(): Promise<{ repo: string; workspace: string; home: string }> {
  const repo = await copyFixture('tresjs', base);
  const workspace = path.join(repo, 'packages', 'core');
  const home = path.join(base, 'home');
  await writeFiles(home, { '.claude/CLAUDE.md': 'Answer briefly.' });
  await writeFiles(base, { 'secret.md': 'SECRET: never in a prompt' });
  await writeFiles(workspace, {
    'CLAUDE.local.md': 'My notes: @docs/local.md\nNot this: @../../../secret.md',
    'docs/local.md': 'Run `pnpm --filter @tresjs/core test` first.',
  });
  return { repo, workspace, home };
}

describe('project instructions in the system prompt', () => {
  it('a package of a monorepo: the user’s file, the root’s, the package’s, imports after their file (fails on main)', async () => {
    const { repo, workspace, home } = await monorepo();
    const model = scripted([{ text: 'Hello.' }]);
    const system = createAgentSystem({
      model,
      cwd: workspace,
      ids: counterIds(),
      clock: tickingClock(),
      projectInstructions: { home },
    });
    const agent = await system.createAgent({ id: 'a', instructions: 'Base.' });
    await agent.run('Hi');
    const expected =
      `${intro}\n\n## ~/.claude/CLAUDE.md\n\nAnswer briefly.\n\n` +
      `## ../../AGENTS.md\n\n${await fixtureText('tresjs/AGENTS.md')}\n\n` +
      `## ../../CLAUDE.md\n\n${await fixtureText('tresjs/CLAUDE.md')}\n\n` +
      `## CLAUDE.md\n\n${await fixtureText('tresjs/packages/core/CLAUDE.md')}\n\n` +
      '## CLAUDE.local.md\n\nMy notes: @docs/local.md\nNot this: @../../../secret.md\n\n' +
      `[@../../../secret.md was not read: ${outsideProblem}.]\n\n` +
      '## docs/local.md (imported by CLAUDE.local.md)\n\nRun `pnpm --filter @tresjs/core test` first.\n';
    expect(model.requests[0]!.system).toBe(`Base.\n\n${expected}`);
    const config = agent.log()[0]!.data.config as Record<string, unknown>;
    // Paths relative to the workspace or `~/`: the log says what was read without naming this machine's home.
    expect([config.instructionFiles, config.instructionsSkipped]).toEqual([
      [
        { file: '~/.claude/CLAUDE.md' },
        { file: '../../AGENTS.md' },
        { file: '../../CLAUDE.md' },
        { file: 'CLAUDE.md' },
        { file: 'CLAUDE.local.md' },
        { file: 'docs/local.md', importedBy: 'CLAUDE.local.md' },
      ],
      [{ file: 'CLAUDE.local.md', import: '../../../secret.md', problem: outsideProblem }],
    ]);
    expect(JSON.stringify(agent.log()[0])).not.toContain(home);
    expect(repo.startsWith(base)).toBe(true);
    await system.dispose();
  });

  it('resume and replay use the recording, whatever the files say now', async () => {
    const { repo, workspace, home } = await monorepo();
    const store = memoryStore();
    const options = { cwd: workspace, store, clock: tickingClock(), projectInstructions: { home } } as const;
    const model = scripted([
      { toolCalls: [{ id: 'r1', name: 'read_file', input: { path: 'docs/local.md' } }] },
      { text: 'Read it.' },
    ]);
    const system = createAgentSystem({
      ...options,
      model,
      tools: codingTools(),
      approve: 'deny',
      ids: counterIds(),
    });
    const agent = await system.createAgent({ id: 'a' });
    await agent.run('Read the local notes');
    const recorded = agent.log();
    await system.dispose();

    // The files change after the session was recorded: a new root rule, and the user's file is gone.
    await writeFile(path.join(repo, 'AGENTS.md'), 'A rule written later.');
    await rm(path.join(home, '.claude', 'CLAUDE.md'));

    const again = scripted([{ text: 'ok' }]);
    const resumedSystem = createAgentSystem({ ...options, model: again, ids: counterIds('r') });
    const resumed = await resumedSystem.resumeAgent('a');
    await resumed.run('Again');
    expect(again.requests[0]!.system).toBe(model.requests[0]!.system);
    await resumedSystem.dispose();

    const replayed = await replaySession(recorded, { setup: { tools: codingTools() } });
    expect(replayed.stopped).toBeUndefined();
    assertSameLog(recorded, replayed.events);
  });
});

/** The system prompt the model receives in `workspace`, with the library's default (no user files). */
async function promptIn(workspace: string): Promise<string> {
  const model = scripted([{ text: 'ok' }]);
  const system = createAgentSystem({ model, cwd: workspace, ids: counterIds(), clock: tickingClock() });
  const agent = await system.createAgent({ id: 'a', instructions: 'Base.' });
  await agent.run('Hi');
  await system.dispose();
  return model.requests[0]!.system;
}

// Issue 26's fail-open cases, each failing on main: what the model was told differs from what Claude Code
// documents for the same files.
describe('what main got wrong', () => {
  it('started in a package of a monorepo, the root’s files are read too, before it (Tresjs/tres)', async () => {
    const repo = await copyFixture('tresjs', base);
    expect(await promptIn(path.join(repo, 'packages', 'core'))).toBe(
      `Base.\n\n${intro}\n\n## ../../AGENTS.md\n\n${await fixtureText('tresjs/AGENTS.md')}\n\n` +
        `## ../../CLAUDE.md\n\n${await fixtureText('tresjs/CLAUDE.md')}\n\n` +
        `## CLAUDE.md\n\n${await fixtureText('tresjs/packages/core/CLAUDE.md')}\n`,
    );
  });

  it('an @path import reaches the model as the file it names, not as text (biomejs/biome)', async () => {
    const repo = await copyFixture('biome', base);
    expect(await promptIn(repo)).toBe(
      `Base.\n\n${intro}\n\n## CLAUDE.md\n\n${await fixtureText('biome/CLAUDE.md')}\n\n` +
        `## CONTRIBUTING.md (imported by CLAUDE.md)\n\n${await fixtureText('biome/CONTRIBUTING.md')}\n`,
    );
  });

  it('.claude/CLAUDE.md and CLAUDE.local.md are read', async () => {
    await writeFiles(base, {
      '.claude/CLAUDE.md': 'Team rules under .claude.',
      'CLAUDE.local.md': 'My sandbox: http://localhost:4000',
    });
    expect(await promptIn(base)).toBe(
      `Base.\n\n${intro}\n\n## .claude/CLAUDE.md\n\nTeam rules under .claude.\n\n` +
        '## CLAUDE.local.md\n\nMy sandbox: http://localhost:4000\n',
    );
  });
});
