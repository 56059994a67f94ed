import { describe, expect, it } from 'vitest';
import { globTool } from '../../src/tools/glob.ts';
import { answer, refusal, useToolWorkspace } from './workspace-fixture.ts';

const fx = useToolWorkspace({
  '.gitignore': 'dist/\n*.log\n!keep.log\n',
  '.git/HEAD': 'ref: refs/heads/main\n',
  'node_modules/pkg/index.js': '',
  'src/b.ts': '',
  'src/a.ts': '',
  'src/deep/c.ts': '',
  'src/readme.md': '',
  'dist/out.js': '',
  'debug.log': '',
  'keep.log': '',
  'pkg/.gitignore': 'generated.ts\n',
  'pkg/generated.ts': '',
  'pkg/main.ts': '',
  '.github/ci.yml': '',
});

const glob = async (input: { pattern: string; path?: string }, tool = globTool()) => fx.run(tool, input);

describe('glob', () => {
  it('lists matches sorted, skipping .git, node_modules and what .gitignore files ignore', async () => {
    expect((await glob({ pattern: '**/*' })).content.split('\n')).toEqual([
      '.github/ci.yml',
      '.gitignore',
      'keep.log',
      'pkg/.gitignore',
      'pkg/main.ts',
      'src/a.ts',
      'src/b.ts',
      'src/deep/c.ts',
      'src/readme.md',
    ]);
  });

  it('searches inside a folder and returns workspace-relative paths', async () => {
    expect(await glob({ pattern: '**/*.ts', path: 'src' })).toEqual(
      answer('src/a.ts\nsrc/b.ts\nsrc/deep/c.ts'),
    );
    expect((await glob({ pattern: '*.ts', path: './src/' })).content).toBe('src/a.ts\nsrc/b.ts');
  });

  it('caps the list with a note', async () => {
    expect((await glob({ pattern: 'src/**/*' }, globTool({ maxResults: 2 }))).content).toBe(
      'src/a.ts\nsrc/b.ts\n\n[Showing the first 2 of 4 files. Narrow the pattern or the path.]',
    );
  });

  it('says when nothing matches, and refuses bad patterns and paths', async () => {
    expect(await glob({ pattern: '**/*.rs' })).toEqual(answer('No files match "**/*.rs" in the workspace.'));
    expect(await glob({ pattern: '../*' })).toEqual(
      refusal('The pattern may not contain ".."; pass a folder in path instead.'),
    );
    expect(await glob({ pattern: '/etc/*' })).toEqual(
      refusal('The pattern must be relative; pass a folder in path instead.'),
    );
    expect(await glob({ pattern: '*', path: 'src/a.ts' })).toEqual(
      refusal('src/a.ts is a file; path must be a folder.'),
    );
    expect((await glob({ pattern: '*', path: 'missing' })).isError).toBe(true);
  });
});
