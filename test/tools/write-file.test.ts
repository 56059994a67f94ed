import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileTool } from '../../src/tools/write-file.ts';
import { answer, refusal, useToolWorkspace, writeFiles } from './workspace-fixture.ts';

const fx = useToolWorkspace();

const write = async (input: { path: string; content: string }) => fx.run(writeFileTool(), input);

describe('write_file', () => {
  it('creates a file and its missing parent folders', async () => {
    expect(await write({ path: 'a/b/c.txt', content: 'héllo' })).toEqual(
      answer('Created a/b/c.txt (6 bytes).'),
    );
    expect(await readFile(path.join(fx.root, 'a/b/c.txt'), 'utf8')).toBe('héllo');
  });

  it('overwrites an existing file and says so', async () => {
    await writeFiles(fx.root, { 'note.md': 'old text' });
    expect(await write({ path: './note.md', content: 'new' })).toEqual(
      answer('Overwrote note.md (3 bytes; it held 8 bytes before).'),
    );
    expect(await readFile(path.join(fx.root, 'note.md'), 'utf8')).toBe('new');
  });

  it('refuses to write onto a folder or the workspace root', async () => {
    await writeFiles(fx.root, { 'src/x.ts': '' });
    expect(await write({ path: 'src', content: 'x' })).toEqual(refusal('"src" is a folder, not a file.'));
    expect(await write({ path: '.', content: 'x' })).toEqual(
      refusal('The workspace root is a folder, not a file to write.'),
    );
  });

  it('refuses a path whose parent is a file', async () => {
    await writeFiles(fx.root, { 'plain.txt': 'x' });
    expect(await write({ path: 'plain.txt/child.txt', content: 'x' })).toEqual(
      refusal('"plain.txt/child.txt" has a part that is a file, not a folder.'),
    );
  });
});
