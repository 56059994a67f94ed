import { mkdir, realpath, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceError } from '../../src/errors/workspace-error.ts';
import { isInside, resolveInWorkspace, toWorkspacePath } from '../../src/tools/workspace.ts';
import { type Fixture, link, makeWorkspace, writeFiles } from './workspace-fixture.ts';

let fx: Fixture;
beforeEach(async () => {
  fx = await makeWorkspace();
  await writeFiles(fx.root, { 'src/a.ts': 'a', 'README.md': 'r' });
});
afterEach(() => fx.cleanup());

async function refusal(userPath: string, options = {}): Promise<WorkspaceError> {
  const error: unknown = await resolveInWorkspace(fx.root, userPath, options).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!WorkspaceError.isInstance(error)) throw new Error(`expected a WorkspaceError for ${userPath}`);
  return error;
}

describe('resolveInWorkspace', () => {
  it('resolves relative, dotted and absolute paths that stay inside', async () => {
    const expected = path.join(fx.root, 'src/a.ts');
    expect(await resolveInWorkspace(fx.root, 'src/a.ts')).toBe(expected);
    expect(await resolveInWorkspace(fx.root, './src/a.ts')).toBe(expected);
    expect(await resolveInWorkspace(fx.root, 'src/../src/a.ts')).toBe(expected);
    expect(await resolveInWorkspace(fx.root, expected)).toBe(expected);
    expect(await resolveInWorkspace(fx.root, '.')).toBe(fx.root);
    expect(await resolveInWorkspace(fx.root, '')).toBe(fx.root);
  });

  it('resolves a path that does not exist yet, below folders that do not exist yet', async () => {
    expect(await resolveInWorkspace(fx.root, 'new/deep/file.txt')).toBe(
      path.join(fx.root, 'new/deep/file.txt'),
    );
  });

  it('follows a symlink that stays inside to its real target', async () => {
    await link(path.join(fx.root, 'src'), path.join(fx.root, 'alias'));
    expect(await resolveInWorkspace(fx.root, 'alias/a.ts', { mustExist: true })).toBe(
      path.join(fx.root, 'src/a.ts'),
    );
  });

  it('accepts a workspace root given through a symlink, and absolute paths spelled through it', async () => {
    const viaLink = path.join(fx.base, 'ws-link');
    await symlink(fx.root, viaLink);
    expect(await resolveInWorkspace(viaLink, 'src/a.ts')).toBe(path.join(fx.root, 'src/a.ts'));
    expect(await resolveInWorkspace(viaLink, path.join(viaLink, 'src/a.ts'))).toBe(
      path.join(fx.root, 'src/a.ts'),
    );
  });

  it('refuses every way out with a reason and a message the model can act on', async () => {
    await link(fx.sentinel, path.join(fx.root, 'link-file'));
    await link(fx.outside, path.join(fx.root, 'link-dir'));
    await link(path.join(fx.outside, 'not-yet.txt'), path.join(fx.root, 'dangling'));
    const corpus = [
      '../x',
      '../../etc/passwd',
      '/etc/passwd',
      fx.sentinel,
      'link-file',
      'link-dir/secret.txt',
      'link-dir/new.txt',
      'dangling',
      'src/../../outside/secret.txt',
      'src/../..',
    ];
    for (const userPath of corpus) {
      const error = await refusal(userPath);
      expect([userPath, error.reason, error.path]).toEqual([userPath, 'outside', userPath]);
      expect(error.message).toContain('is outside the workspace');
    }
    const nul = await refusal('src/a.ts\0.png');
    expect([nul.reason, nul.message]).toEqual([
      'nul_byte',
      'The path contains a NUL byte, which no file name may hold.',
    ]);
  });

  it('names a symbolic link as the way out when one was used', async () => {
    await link(fx.outside, path.join(fx.root, 'link-dir'));
    expect((await refusal('link-dir/secret.txt')).message).toContain(
      'outside the workspace through a symbolic link',
    );
  });

  it('catches a loop of dangling symlinks instead of spinning', async () => {
    await symlink(path.join(fx.root, 'loop-b'), path.join(fx.root, 'loop-a'));
    await symlink(path.join(fx.root, 'loop-a'), path.join(fx.root, 'loop-b'));
    const error: unknown = await resolveInWorkspace(fx.root, 'loop-a').catch((caught: unknown) => caught);
    expect((error as NodeJS.ErrnoException).code).toBe('ELOOP');
  });

  it('refuses a missing path when it must exist, and folders when writing', async () => {
    expect((await refusal('nope.txt', { mustExist: true })).reason).toBe('not_found');
    expect((await refusal('.', { forWrite: true })).reason).toBe('not_writable');
    expect((await refusal('src', { forWrite: true })).message).toBe('"src" is a folder, not a file.');
    await mkdir(path.join(fx.root, 'empty'));
    expect(await resolveInWorkspace(fx.root, 'empty/new.txt', { forWrite: true })).toBe(
      path.join(await realpath(fx.root), 'empty/new.txt'),
    );
  });
});

describe('isInside and toWorkspacePath', () => {
  it('compare whole path segments', () => {
    expect([
      isInside('/a/b', '/a/b'),
      isInside('/a/b', '/a/b/c'),
      isInside('/a/b', '/a/bc'),
      isInside('/a/b', '/a'),
    ]).toEqual([true, true, false, false]);
    expect([toWorkspacePath('/a/b', '/a/b'), toWorkspacePath('/a/b', '/a/b/c/d.ts')]).toEqual([
      '.',
      'c/d.ts',
    ]);
  });
});
