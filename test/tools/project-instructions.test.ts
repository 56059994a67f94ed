// Instruction files as Claude Code finds them: from the repository root down to the workspace, the user's
// own, `@path` imports (bounded, confined), each file once. Real files from public repositories are in
// test/fixtures/instructions (PROVENANCE.md there says where each comes from).
import { execFileSync } from 'node:child_process';
import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadProjectInstructions } from '../../src/runtime/project-instructions.ts';
import { copyFixture, fixtureText, instructionsIntro as intro } from './instruction-fixtures.ts';
import { type Fixture, makeWorkspace, sentinelText, writeFiles } from './workspace-fixture.ts';

let fx: Fixture;
beforeEach(async () => {
  fx = await makeWorkspace();
});
afterEach(() => fx.cleanup());

const outsideProblem = "it is outside the repository and the user's ~/.claude and ~/.agentchart";
const nothing = { text: '', files: [], skipped: [], unresolved: [] };

describe('loadProjectInstructions: the workspace', () => {
  it('returns nothing when no file exists', async () => {
    expect(await loadProjectInstructions(fx.root)).toEqual(nothing);
  });

  it('formats AGENTS.md and CLAUDE.md as one section, in that order', async () => {
    await writeFiles(fx.root, {
      'CLAUDE.md': 'Use pnpm.\n',
      'AGENTS.md': '\nRun npm test before committing.\n',
    });
    expect(await loadProjectInstructions(fx.root)).toEqual({
      ...nothing,
      text: `${intro}\n\n## AGENTS.md\n\nRun npm test before committing.\n\n## CLAUDE.md\n\nUse pnpm.\n`,
      files: [{ file: 'AGENTS.md' }, { file: 'CLAUDE.md' }],
    });
  });

  it('reads a file once when the other is a link to it, and skips empty files', async () => {
    await writeFiles(fx.root, { 'AGENTS.md': 'Shared rules.' });
    await symlink('AGENTS.md', path.join(fx.root, 'CLAUDE.md'));
    expect(await loadProjectInstructions(fx.root)).toEqual({
      ...nothing,
      text: `${intro}\n\n## AGENTS.md\n\nShared rules.\n`,
      files: [{ file: 'AGENTS.md' }],
    });
    await writeFiles(fx.root, { 'AGENTS.md': '  \n' });
    expect(await loadProjectInstructions(fx.root)).toEqual(nothing);
  });

  it('reads .claude/CLAUDE.md and CLAUDE.local.md after CLAUDE.md (fails on main: only two names)', async () => {
    await writeFiles(fx.root, {
      'CLAUDE.local.md': 'My sandbox is at http://localhost:4000.',
      '.claude/CLAUDE.md': 'Project rules kept under .claude.',
      'CLAUDE.md': 'Use pnpm.',
    });
    const loaded = await loadProjectInstructions(fx.root);
    expect(loaded.files).toEqual([
      { file: 'CLAUDE.md' },
      { file: '.claude/CLAUDE.md' },
      { file: 'CLAUDE.local.md' },
    ]);
    expect(loaded.text).toBe(
      `${intro}\n\n## CLAUDE.md\n\nUse pnpm.\n\n## .claude/CLAUDE.md\n\nProject rules kept under .claude.\n\n` +
        '## CLAUDE.local.md\n\nMy sandbox is at http://localhost:4000.\n',
    );
  });

  it('does not read a project file that links outside the repository (fails on main: it was read)', async () => {
    await symlink(fx.sentinel, path.join(fx.root, 'CLAUDE.md'));
    expect(await loadProjectInstructions(fx.root)).toEqual({
      ...nothing,
      skipped: [{ file: 'CLAUDE.md', problem: outsideProblem }],
    });
  });

  it('skips a FIFO, never opening it, and says so', async () => {
    execFileSync('mkfifo', [path.join(fx.root, 'AGENTS.md')]);
    await writeFiles(fx.root, { 'CLAUDE.md': 'Rules.' });
    expect(await loadProjectInstructions(fx.root)).toEqual({
      ...nothing,
      text: `${intro}\n\n## CLAUDE.md\n\nRules.\n`,
      files: [{ file: 'CLAUDE.md' }],
      skipped: [{ file: 'AGENTS.md', problem: 'it is a named pipe (FIFO)' }],
    });
  });
});

describe('loadProjectInstructions: up to the repository root', () => {
  it('started in a monorepo package, reads the root files first (Tresjs/tres; fails on main)', async () => {
    const repo = await copyFixture('tresjs', fx.base);
    const loaded = await loadProjectInstructions(path.join(repo, 'packages', 'core'));
    expect(loaded.files).toEqual([
      { file: '../../AGENTS.md' },
      { file: '../../CLAUDE.md' },
      { file: 'CLAUDE.md' },
    ]);
    expect(loaded.text).toBe(
      `${intro}\n\n## ../../AGENTS.md\n\n${await fixtureText('tresjs/AGENTS.md')}\n\n` +
        `## ../../CLAUDE.md\n\n${await fixtureText('tresjs/CLAUDE.md')}\n\n` +
        `## CLAUDE.md\n\n${await fixtureText('tresjs/packages/core/CLAUDE.md')}\n`,
    );
    // "When using @tresjs/core, Vue" is an import by Claude Code's syntax that names no file: it stays text.
    expect(loaded.unresolved).toEqual([
      { file: 'CLAUDE.md', import: 'tresjs/core' },
      { file: 'CLAUDE.md', import: 'tresjs/core,' },
    ]);
    expect(loaded.skipped).toEqual([]);
  });

  it('outside a repository, reads the workspace only (a file above it is no project file)', async () => {
    await writeFiles(fx.base, { 'AGENTS.md': 'Someone else’s rules.' });
    await writeFiles(fx.root, { 'AGENTS.md': 'Ours.' });
    expect((await loadProjectInstructions(fx.root)).files).toEqual([{ file: 'AGENTS.md' }]);
    // A linked worktree or submodule has a `.git` file, not a folder: it is a repository root too.
    await writeFiles(fx.base, { '.git': 'gitdir: /elsewhere\n' });
    expect((await loadProjectInstructions(fx.root)).files).toEqual([
      { file: '../AGENTS.md' },
      { file: 'AGENTS.md' },
    ]);
  });
});

describe('loadProjectInstructions: the user’s files', () => {
  it('reads ~/.agentchart/AGENTS.md and ~/.claude/CLAUDE.md first, wherever they link (fails on main)', async () => {
    const home = path.join(fx.base, 'home');
    await writeFiles(home, {
      '.agentchart/AGENTS.md': 'Answer in British English.',
      'dotfiles/claude.md': 'Be brief.',
    });
    await mkdir(path.join(home, '.claude'));
    await symlink('../dotfiles/claude.md', path.join(home, '.claude', 'CLAUDE.md'));
    await writeFiles(fx.root, { 'AGENTS.md': 'Run the tests.' });
    const loaded = await loadProjectInstructions(fx.root, { home });
    expect(loaded.files).toEqual([
      { file: '~/.agentchart/AGENTS.md' },
      { file: '~/.claude/CLAUDE.md' },
      { file: 'AGENTS.md' },
    ]);
    expect(loaded.text).toBe(
      `${intro}\n\n## ~/.agentchart/AGENTS.md\n\nAnswer in British English.\n\n## ~/.claude/CLAUDE.md\n\nBe brief.\n\n` +
        '## AGENTS.md\n\nRun the tests.\n',
    );
    // Without a home folder (the library's default) none of them is read.
    expect((await loadProjectInstructions(fx.root)).files).toEqual([{ file: 'AGENTS.md' }]);
  });
});

describe('loadProjectInstructions: @path imports', () => {
  it('expands an import relative to the importing file, after it (biomejs/biome; fails on main)', async () => {
    const repo = await copyFixture('biome', fx.base);
    // biome's CLAUDE.md was written for work in this crate.
    const crate = path.join(repo, 'crates', 'biome_html_formatter');
    await mkdir(crate, { recursive: true });
    const loaded = await loadProjectInstructions(crate);
    expect(loaded.files).toEqual([
      { file: '../../CLAUDE.md' },
      { file: '../../CONTRIBUTING.md', importedBy: '../../CLAUDE.md' },
    ]);
    expect(loaded.text).toBe(
      `${intro}\n\n## ../../CLAUDE.md\n\n${await fixtureText('biome/CLAUDE.md')}\n\n` +
        `## ../../CONTRIBUTING.md (imported by ../../CLAUDE.md)\n\n${await fixtureText('biome/CONTRIBUTING.md')}\n`,
    );
    // The maintainers' list "[Name @handle](https://github.com/handle)": imports that name no file.
    expect(loaded.unresolved).toHaveLength(23);
    expect(loaded.unresolved[0]).toEqual({
      file: '../../CONTRIBUTING.md',
      import: 'arendjr](https://github.com/arendjr)',
    });
    expect(loaded.skipped).toEqual([]);
  });

  it('never reads an import outside the repository and the user’s folders: it stays text, with a note', async () => {
    const home = path.join(fx.base, 'home');
    await writeFiles(home, { '.claude/team.md': 'Team notes.', '.ssh/config': 'Host secret' });
    // The workspace is the repository here, so ../outside is outside it.
    const body = `See @../outside/secret.txt and @~/.ssh/config for hosts.\n- @~/.claude/team.md\n- @${fx.sentinel}`;
    await writeFiles(fx.root, { '.git/HEAD': 'ref: refs/heads/main\n', 'CLAUDE.md': body });
    const loaded = await loadProjectInstructions(fx.root, { home });
    expect(loaded.files).toEqual([
      { file: 'CLAUDE.md' },
      { file: '~/.claude/team.md', importedBy: 'CLAUDE.md' },
    ]);
    expect(loaded.skipped).toEqual([
      { file: 'CLAUDE.md', import: '../outside/secret.txt', problem: outsideProblem },
      { file: 'CLAUDE.md', import: '~/.ssh/config', problem: outsideProblem },
      { file: 'CLAUDE.md', import: fx.sentinel, problem: outsideProblem },
    ]);
    expect(loaded.text).toBe(
      `${intro}\n\n## CLAUDE.md\n\n${body}\n\n` +
        `[@../outside/secret.txt was not read: ${outsideProblem}.]\n\n` +
        `[@~/.ssh/config was not read: ${outsideProblem}.]\n\n` +
        `[@${fx.sentinel} was not read: ${outsideProblem}.]\n\n` +
        '## ~/.claude/team.md (imported by CLAUDE.md)\n\nTeam notes.\n',
    );
    expect(loaded.text).not.toContain(sentinelText.trim());
    // Without a home folder, `~/` names nothing that may be read.
    expect((await loadProjectInstructions(fx.root)).skipped[1]).toEqual({
      file: 'CLAUDE.md',
      import: '~/.ssh/config',
      problem: 'no home folder was given',
    });
  });

  it('follows imports five hops deep and no further; a cycle is read once', async () => {
    await writeFiles(fx.root, {
      'CLAUDE.md': 'Start: @docs/1.md',
      'docs/1.md': 'One: @2.md and back to @../CLAUDE.md',
      'docs/2.md': 'Two: @3.md',
      'docs/3.md': 'Three: @4.md',
      'docs/4.md': 'Four: @5.md',
      'docs/5.md': 'Five: @6.md',
      'docs/6.md': 'Six, too deep.',
    });
    const loaded = await loadProjectInstructions(fx.root);
    expect(loaded.files).toEqual([
      { file: 'CLAUDE.md' },
      { file: 'docs/1.md', importedBy: 'CLAUDE.md' },
      { file: 'docs/2.md', importedBy: 'docs/1.md' },
      { file: 'docs/3.md', importedBy: 'docs/2.md' },
      { file: 'docs/4.md', importedBy: 'docs/3.md' },
      { file: 'docs/5.md', importedBy: 'docs/4.md' },
    ]);
    expect(loaded.skipped).toEqual([
      { file: 'docs/5.md', import: '6.md', problem: 'it is more than 5 imports deep' },
    ]);
    expect(
      loaded.text.endsWith(
        '## docs/5.md (imported by docs/4.md)\n\nFive: @6.md\n\n[@6.md was not read: it is more than 5 imports deep.]\n',
      ),
    ).toBe(true);
    expect(loaded.text).not.toContain('Six, too deep.');
  });

  it('does not import from code spans or fenced code blocks, and refuses a FIFO', async () => {
    execFileSync('mkfifo', [path.join(fx.root, 'pipe.md')]);
    await writeFiles(fx.root, {
      'CLAUDE.md': [
        'Read @a.md but not `@b.md` or ``a `@c.md` span``.',
        '```sh',
        'npm i @d.md',
        '```',
        '~~~',
        '@e.md',
        '~~~',
        'Then @f.md\\ with\\ spaces.md#section and @pipe.md',
      ].join('\n'),
      'a.md': 'A.',
      'b.md': 'B.',
      'c.md': 'C.',
      'd.md': 'D.',
      'e.md': 'E.',
      'f.md with spaces.md': 'F.',
    });
    const loaded = await loadProjectInstructions(fx.root);
    expect(loaded.files).toEqual([
      { file: 'CLAUDE.md' },
      { file: 'a.md', importedBy: 'CLAUDE.md' },
      { file: 'f.md with spaces.md', importedBy: 'CLAUDE.md' },
    ]);
    expect(loaded.skipped).toEqual([
      { file: 'CLAUDE.md', import: 'pipe.md', problem: 'it is a named pipe (FIFO)' },
    ]);
  });

  it('keeps the total bounded: a file past the limit is cut, the next not read', async () => {
    const big = (letter: string) => `${letter.repeat(39_999)}\n`;
    await writeFiles(fx.root, {
      'AGENTS.md': big('a'),
      'CLAUDE.md': big('b'),
      '.claude/CLAUDE.md': big('c'),
      'CLAUDE.local.md': 'Last.',
    });
    const loaded = await loadProjectInstructions(fx.root);
    expect(loaded.files).toEqual([
      { file: 'AGENTS.md' },
      { file: 'CLAUDE.md' },
      { file: '.claude/CLAUDE.md' },
    ]);
    expect(loaded.skipped).toEqual([
      { file: 'CLAUDE.local.md', problem: 'the instructions already reached 100000 characters' },
    ]);
    expect(
      loaded.text.endsWith(
        `${'c'.repeat(20_002)}\n\n[.claude/CLAUDE.md was cut at 20002 characters: the instructions reached their limit.]\n`,
      ),
    ).toBe(true);
    expect(loaded.text.length).toBeLessThan(100_000 + 1_000);
  });
});
