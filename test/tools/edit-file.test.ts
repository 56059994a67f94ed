import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editFileTool } from '../../src/tools/edit-file.ts';
import { context, type Fixture, makeWorkspace, refusal, result, writeFiles } from './workspace-fixture.ts';

let fx: Fixture;
beforeEach(async () => {
  fx = await makeWorkspace();
  await writeFiles(fx.root, { 'src/x.ts': 'one\ntwo\nthree\n', 'dup.txt': 'a = 1\nb = 1\nc = 1\n' });
});
afterEach(() => fx.cleanup());

type EditInput = { path: string; old_string: string; new_string: string; replace_all?: boolean };
const edit = async (input: EditInput) => result(await editFileTool().run(input, context(fx.root)));
const onDisk = (name: string) => readFile(path.join(fx.root, name), 'utf8');

describe('edit_file', () => {
  it('replaces one exact occurrence and returns a unified diff', async () => {
    expect(await edit({ path: 'src/x.ts', old_string: 'two', new_string: 'TWO' })).toEqual({
      content:
        'Edited src/x.ts: replaced 1 occurrence.\n\n' +
        '--- a/src/x.ts\n+++ b/src/x.ts\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n',
      isError: false,
    });
    expect(await onDisk('src/x.ts')).toBe('one\nTWO\nthree\n');
  });

  it('refuses an ambiguous match, saying how many, and replaces all when asked', async () => {
    expect(await edit({ path: 'dup.txt', old_string: '= 1', new_string: '= 2' })).toEqual({
      content:
        'old_string occurs 3 times in dup.txt. Add surrounding lines to make it unique, or set replace_all to ' +
        'true to replace every occurrence.',
      isError: true,
    });
    expect(await onDisk('dup.txt')).toBe('a = 1\nb = 1\nc = 1\n');
    const out = await edit({ path: 'dup.txt', old_string: '= 1', new_string: '= 2', replace_all: true });
    expect(out.content.split('\n')[0]).toBe('Edited dup.txt: replaced 3 occurrences.');
    expect(await onDisk('dup.txt')).toBe('a = 2\nb = 2\nc = 2\n');
  });

  it('fails clearly when old_string is missing, empty or equal to new_string', async () => {
    expect(await edit({ path: 'src/x.ts', old_string: 'four', new_string: '4' })).toEqual({
      content:
        'old_string was not found in src/x.ts. It must match exactly, including whitespace and indentation; ' +
        'read the file again and copy the text without the line-number prefix.',
      isError: true,
    });
    expect(await edit({ path: 'src/x.ts', old_string: 'two', new_string: 'two' })).toEqual(
      refusal('old_string and new_string are the same, so the edit would change nothing.'),
    );
    expect(await edit({ path: 'src/x.ts', old_string: '', new_string: 'x' })).toEqual(
      refusal('old_string is empty. To create a file, use write_file.'),
    );
    expect(await onDisk('src/x.ts')).toBe('one\ntwo\nthree\n');
  });

  it('keeps replacement text literal ($& and $1 are not patterns)', async () => {
    await edit({ path: 'src/x.ts', old_string: 'two', new_string: '$& $1 $$' });
    expect(await onDisk('src/x.ts')).toBe('one\n$& $1 $$\nthree\n');
  });

  it('matches "\\n" in old_string against a CRLF file and keeps its line endings', async () => {
    await writeFiles(fx.root, { 'dos.txt': 'a\r\nb\r\nc\r\n' });
    const out = await edit({ path: 'dos.txt', old_string: 'a\nb', new_string: 'A\nB' });
    expect(out.isError).toBe(false);
    expect(await onDisk('dos.txt')).toBe('A\r\nB\r\nc\r\n');
  });

  it('refuses missing files, folders and binary files', async () => {
    await writeFiles(fx.root, { 'blob.bin': Buffer.from([0x61, 0, 0x62]) });
    expect(await edit({ path: 'nope.ts', old_string: 'a', new_string: 'b' })).toEqual(
      refusal('"nope.ts" does not exist in the workspace.'),
    );
    expect(await edit({ path: 'src', old_string: 'a', new_string: 'b' })).toEqual(
      refusal('src is a folder, not a file.'),
    );
    expect(await edit({ path: 'blob.bin', old_string: 'a', new_string: 'b' })).toEqual(
      refusal('blob.bin is a binary file; edit_file edits text.'),
    );
  });
});
