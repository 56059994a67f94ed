// A hard link is a second name for the same bytes: `ln ../outside.txt ws/notes.txt` puts a file from
// outside the workspace inside it, where no symbolic-link check can see it. write_file and edit_file
// never write such a file in place; they replace the workspace's name with a new file.
import { chmod, link, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editFileTool } from '../../src/tools/edit-file.ts';
import { writeFileTool } from '../../src/tools/write-file.ts';
import { answer, context, type Fixture, makeWorkspace, result, sentinelText } from './workspace-fixture.ts';

let fx: Fixture;
let notes = '';
beforeEach(async () => {
  fx = await makeWorkspace();
  notes = path.join(fx.root, 'notes.txt');
  await chmod(fx.sentinel, 0o640);
  await link(fx.sentinel, notes);
});
afterEach(() => fx.cleanup());

const replaced =
  'notes.txt had 2 hard links: it was replaced by a new file of that name, so the other links keep the ' +
  'old content.';

/** What a path holds and how: its text, its permission bits and its number of links. */
async function fileState(file: string) {
  const info = await stat(file);
  return { text: await readFile(file, 'utf8'), mode: info.mode & 0o7777, links: info.nlink };
}

describe('write_file and edit_file on a file with more than one link', () => {
  it('write_file replaces the workspace name and leaves the file outside as it was', async () => {
    const output = await writeFileTool().run({ path: 'notes.txt', content: 'new notes\n' }, context(fx.root));
    expect(result(output)).toEqual(
      answer(`Overwrote notes.txt (10 bytes; it held ${sentinelText.length} bytes before). ${replaced}`),
    );
    expect(await fileState(fx.sentinel)).toEqual({ text: sentinelText, mode: 0o640, links: 1 });
    expect(await fileState(notes)).toEqual({ text: 'new notes\n', mode: 0o640, links: 1 });
    // The temporary file became notes.txt: nothing is left beside it.
    expect(await readdir(fx.root)).toEqual(['notes.txt']);
  });

  it('edit_file replaces the workspace name with the edited bytes and leaves the file outside', async () => {
    const output = await editFileTool().run(
      { path: 'notes.txt', old_string: 'nothing', new_string: 'everything' },
      context(fx.root),
    );
    expect(result(output)).toEqual({
      content:
        `Edited notes.txt: replaced 1 occurrence. ${replaced}\n\n` +
        '--- a/notes.txt\n+++ b/notes.txt\n@@ -1,1 +1,1 @@\n' +
        `-${sentinelText}+${sentinelText.replace('nothing', 'everything')}`,
      isError: false,
    });
    expect(await fileState(fx.sentinel)).toEqual({ text: sentinelText, mode: 0o640, links: 1 });
    expect(await fileState(notes)).toEqual({
      text: sentinelText.replace('nothing', 'everything'),
      mode: 0o640,
      links: 1,
    });
  });

  it('edit_file keeps every byte it does not replace in the new file (CRLF, a BOM, bytes not UTF-8)', async () => {
    const inside = path.join(fx.root, 'latin.txt');
    const outside = path.join(fx.outside, 'latin.txt');
    const before = Buffer.concat([
      Buffer.from('\uFEFFcaf'),
      Buffer.from([0xe9]),
      Buffer.from(' old\r\nend\r\n'),
    ]);
    await writeFile(outside, before);
    await link(outside, inside);
    const output = await editFileTool().run(
      { path: 'latin.txt', old_string: 'old\nend', new_string: 'new\nend' },
      context(fx.root),
    );
    expect(result(output).isError).toBe(false);
    expect(await readFile(outside)).toEqual(before);
    expect(await readFile(inside)).toEqual(
      Buffer.from(before.toString('latin1').replace('old', 'new'), 'latin1'),
    );
  });

  it('a file with one link is still written in place (same inode)', async () => {
    const single = path.join(fx.root, 'single.txt');
    await writeFile(single, 'one\n');
    const inode = (await stat(single)).ino;
    await writeFileTool().run({ path: 'single.txt', content: 'two\n' }, context(fx.root));
    await editFileTool().run(
      { path: 'single.txt', old_string: 'two', new_string: 'three' },
      context(fx.root),
    );
    expect({ inode: (await stat(single)).ino, text: await readFile(single, 'utf8') }).toEqual({
      inode,
      text: 'three\n',
    });
  });
});
