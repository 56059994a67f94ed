import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadProjectInstructions } from '../../src/runtime/project-instructions.ts';
import { type Fixture, makeWorkspace, writeFiles } from './workspace-fixture.ts';

let fx: Fixture;
beforeEach(async () => {
  fx = await makeWorkspace();
});
afterEach(() => fx.cleanup());

const intro =
  '# Project instructions\n\nThe project keeps these instructions at its root. Follow them when working in ' +
  "this workspace; the user's direct requests come first.";

describe('loadProjectInstructions', () => {
  it('returns nothing when neither file exists', async () => {
    expect(await loadProjectInstructions(fx.root)).toEqual({ text: '', files: [] });
  });

  it('formats AGENTS.md and CLAUDE.md as one section, in that order', async () => {
    await writeFiles(fx.root, {
      'CLAUDE.md': 'Use pnpm.\n',
      'AGENTS.md': '\nRun npm test before committing.\n',
    });
    expect(await loadProjectInstructions(fx.root)).toEqual({
      text: `${intro}\n\n## AGENTS.md\n\nRun npm test before committing.\n\n## CLAUDE.md\n\nUse pnpm.\n`,
      files: ['AGENTS.md', 'CLAUDE.md'],
    });
  });

  it('reads a file once when the other is a link to it, and skips empty files', async () => {
    await writeFiles(fx.root, { 'AGENTS.md': 'Shared rules.' });
    await symlink('AGENTS.md', path.join(fx.root, 'CLAUDE.md'));
    expect(await loadProjectInstructions(fx.root)).toEqual({
      text: `${intro}\n\n## AGENTS.md\n\nShared rules.\n`,
      files: ['AGENTS.md'],
    });
    await writeFiles(fx.root, { 'AGENTS.md': '  \n' });
    expect(await loadProjectInstructions(fx.root)).toEqual({ text: '', files: [] });
  });

  it('reads CLAUDE.md alone', async () => {
    await writeFiles(fx.root, { 'CLAUDE.md': 'Only Claude rules.' });
    expect((await loadProjectInstructions(fx.root)).files).toEqual(['CLAUDE.md']);
  });
});
