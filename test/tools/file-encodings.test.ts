import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codingTools } from '../../src/index.ts';
import { answer, context, type Fixture, makeWorkspace, result, writeFiles } from './workspace-fixture.ts';

let fx: Fixture;
beforeEach(async () => {
  fx = await makeWorkspace();
});
afterEach(() => fx.cleanup());

const tools = codingTools();
async function call(name: string, input: Record<string, unknown>) {
  const tool = tools.find((candidate) => candidate.name === name)!;
  return result(await tool.run(input as unknown, context(fx.root)));
}
const bytes = (name: string) => readFile(path.join(fx.root, name));

// "café" in Latin-1: the é is the single byte 0xE9, which is not UTF-8.
const latin1 = Buffer.concat([Buffer.from('title\ncaf'), Buffer.from([0xe9]), Buffer.from('\nend\n')]);
const bom = Buffer.from([0xef, 0xbb, 0xbf]);

describe('file tools and the bytes of a file', () => {
  it('edit_file keeps a Latin-1 byte on a line it does not edit, and says the file is not UTF-8', async () => {
    await writeFiles(fx.root, { 'menu.txt': latin1 });
    const out = await call('edit_file', { path: 'menu.txt', old_string: 'end', new_string: 'fin' });
    expect(out.isError).toBe(false);
    expect(out.content.split('\n\n')[0]).toBe(
      'Edited menu.txt: replaced 1 occurrence. menu.txt is not valid UTF-8: the bytes you did not edit ' +
        'were kept as they were, and your text was written as UTF-8.',
    );
    expect(await bytes('menu.txt')).toEqual(
      Buffer.concat([Buffer.from('title\ncaf'), Buffer.from([0xe9]), Buffer.from('\nfin\n')]),
    );
  });

  it('edit_file keeps a byte-order mark and CRLF line endings', async () => {
    await writeFiles(fx.root, { 'dos.txt': Buffer.concat([bom, Buffer.from('one\r\ntwo\r\nthree\r\n')]) });
    const out = await call('edit_file', { path: 'dos.txt', old_string: 'one\ntwo', new_string: '1\n2' });
    expect(out).toEqual({
      content:
        'Edited dos.txt: replaced 1 occurrence.\n\n' +
        '--- a/dos.txt\n+++ b/dos.txt\n@@ -1,3 +1,3 @@\n-\uFEFFone\r\n-two\r\n+\uFEFF1\r\n+2\r\n three\r\n',
      isError: false,
    });
    expect(await bytes('dos.txt')).toEqual(Buffer.concat([bom, Buffer.from('1\r\n2\r\nthree\r\n')]));
  });

  it('read_file shows invalid bytes as U+FFFD and says so; edit_file cannot match across them', async () => {
    await writeFiles(fx.root, { 'menu.txt': latin1 });
    expect(await call('read_file', { path: 'menu.txt' })).toEqual({
      content:
        '     1\ttitle\n     2\tcaf\uFFFD\n     3\tend\n\n' +
        '[menu.txt is not valid UTF-8: bytes that are not UTF-8 are shown as \uFFFD. edit_file keeps them as ' +
        'they are, but old_string cannot match them.]',
      isError: false,
    });
    expect(
      await call('edit_file', { path: 'menu.txt', old_string: 'caf\uFFFD', new_string: 'café' }),
    ).toEqual({
      content:
        'old_string was not found in menu.txt. It must match exactly, including whitespace and indentation; ' +
        'read the file again and copy the text without the line-number prefix. menu.txt is not valid UTF-8, ' +
        'and old_string holds \uFFFD, which read_file shows in place of bytes that are not UTF-8: choose ' +
        'old_string from lines without it.',
      isError: true,
    });
    expect(await bytes('menu.txt')).toEqual(latin1);
  });

  it('write_file refuses to put U+FFFD over a file that is not UTF-8, and writes UTF-8 otherwise', async () => {
    await writeFiles(fx.root, { 'menu.txt': latin1 });
    expect(await call('write_file', { path: 'menu.txt', content: 'title\ncaf\uFFFD\nend\n' })).toEqual({
      content:
        'menu.txt is not valid UTF-8, and the content holds \uFFFD, which read_file shows in place of bytes ' +
        'that are not UTF-8: writing it would destroy those bytes. Use edit_file to change the parts you ' +
        'need; it keeps the bytes it does not edit.',
      isError: true,
    });
    expect(await bytes('menu.txt')).toEqual(latin1);
    expect(await call('write_file', { path: 'menu.txt', content: 'café\n' })).toEqual(
      answer('Overwrote menu.txt (6 bytes; it held 15 bytes before).'),
    );
    expect(await bytes('menu.txt')).toEqual(Buffer.from('café\n', 'utf8'));
  });
});
