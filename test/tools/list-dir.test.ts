import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listDirTool } from '../../src/tools/list-dir.ts';
import { answer, link, refusal, useToolWorkspace } from './workspace-fixture.ts';

const fx = useToolWorkspace(
  {
    'b.txt': '',
    'a.txt': '',
    'src/index.ts': '',
    '.env.example': '',
    'Zeta.md': '',
  },
  async (fixture) => {
    await link('src/index.ts', path.join(fixture.root, 'main.ts'));
  },
);

const list = async (input: { path?: string }, tool = listDirTool()) => fx.run(tool, input);

describe('list_dir', () => {
  it('lists the root sorted, folders with "/", links with their target', async () => {
    expect(await list({})).toEqual(
      answer(['.env.example', 'Zeta.md', 'a.txt', 'b.txt', 'main.ts -> src/index.ts', 'src/'].join('\n')),
    );
  });

  it('lists a sub-folder and says when one is empty', async () => {
    await mkdir(path.join(fx.root, 'empty'));
    expect((await list({ path: 'src' })).content).toBe('index.ts');
    expect(await list({ path: 'empty' })).toEqual({ content: 'empty/ is empty.', isError: false });
  });

  it('caps long listings with a note', async () => {
    expect((await list({}, listDirTool({ maxEntries: 2 }))).content).toBe(
      '.env.example\nZeta.md\n\n[Showing 2 of 6 entries. Use glob with a pattern to narrow it.]',
    );
  });

  it('refuses files and missing folders', async () => {
    expect(await list({ path: 'a.txt' })).toEqual(refusal('a.txt is a file, not a folder; use read_file.'));
    expect(await list({ path: 'nope' })).toEqual(refusal('"nope" does not exist in the workspace.'));
  });
});
