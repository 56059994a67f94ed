import { describe, expect, it } from 'vitest';
import { readFileTool } from '../../src/tools/read-file.ts';
import { answer, context, refusal, useToolWorkspace, writeFiles } from './workspace-fixture.ts';

const fx = useToolWorkspace();

const lines = (count: number) => `${Array.from({ length: count }, (_, i) => `line ${i + 1}`).join('\n')}\n`;

function pngHeader(width: number, height: number): Buffer {
  const header = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0);
  header.writeUInt32BE(13, 8);
  header.write('IHDR', 12, 'latin1');
  header.writeUInt32BE(width, 16);
  header.writeUInt32BE(height, 20);
  return header;
}

async function read(input: Record<string, unknown>, tool = readFileTool()) {
  return fx.run(tool, input);
}

describe('read_file', () => {
  it('returns numbered lines like cat -n', async () => {
    await writeFiles(fx.root, { 'src/a.ts': 'alpha\n  beta\n\tgamma\n' });
    expect(await read({ path: 'src/a.ts' })).toEqual(
      answer('     1\talpha\n     2\t  beta\n     3\t\tgamma'),
    );
  });

  it('reads a window with offset and limit and says where to continue', async () => {
    await writeFiles(fx.root, { 'log.txt': lines(10) });
    expect(await read({ path: 'log.txt', offset: 3, limit: 2 })).toEqual({
      content:
        '     3\tline 3\n     4\tline 4\n\n[Showing lines 3-4 of 10. To read further, call read_file with offset 5.]',
      isError: false,
    });
    expect((await read({ path: 'log.txt', offset: 9 })).content).toBe('     9\tline 9\n    10\tline 10');
  });

  it('stops at the default line limit with a note', async () => {
    await writeFiles(fx.root, { 'log.txt': lines(8) });
    const out = await read({ path: 'log.txt' }, readFileTool({ defaultLimit: 3 }));
    expect(out.content.split('\n').at(-1)).toBe(
      '[Showing lines 1-3 of 8. To read further, call read_file with offset 4.]',
    );
  });

  it('answers a call aborted before the file is read, with no stream error left to escape', async () => {
    await writeFiles(fx.root, { 'log.txt': lines(10) });
    const controller = new AbortController();
    controller.abort(new Error('tool timed out'));
    const outcome = await readFileTool()
      .run({ path: 'log.txt' }, context(fx.root, { controller }))
      .then(
        (output) => ['resolved', output],
        (error: unknown) => ['rejected', (error as Error).message],
      );
    // A stray stream 'error' event would surface on the next turns of the event loop.
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(outcome).toEqual(['rejected', 'tool timed out']);
  });

  it('caps the output in bytes and says how to read further', async () => {
    await writeFiles(fx.root, { 'log.txt': lines(20) });
    const out = await read({ path: 'log.txt' }, readFileTool({ maxBytes: 60 }));
    expect(out.content).toBe(
      '     1\tline 1\n     2\tline 2\n     3\tline 3\n     4\tline 4\n\n' +
        '[Output capped at 60 bytes: showing lines 1-4 of 20. To read further, call read_file with offset 5.]',
    );
  });

  it('reads CRLF files line by line and cuts very long lines', async () => {
    await writeFiles(fx.root, { 'dos.txt': 'one\r\ntwo\r\n', 'wide.txt': `${'x'.repeat(2500)}\n` });
    expect((await read({ path: 'dos.txt' })).content).toBe('     1\tone\n     2\ttwo');
    expect((await read({ path: 'wide.txt' })).content).toBe(
      `     1\t${'x'.repeat(2000)}... [line truncated, 2500 characters]`,
    );
  });

  it('refuses an offset past the end, binary files, folders and missing files', async () => {
    await writeFiles(fx.root, {
      'short.txt': 'a\nb\n',
      'blob.bin': Buffer.from([1, 2, 0, 3, 4]),
      'dir/x': 'x',
    });
    expect(await read({ path: 'short.txt', offset: 5 })).toEqual(
      refusal('short.txt has 2 lines; offset 5 is past the end.'),
    );
    expect(await read({ path: 'blob.bin' })).toEqual(
      refusal('blob.bin is a binary file (5 bytes); read_file shows text files only.'),
    );
    expect(await read({ path: 'dir' })).toEqual(
      refusal('dir is a folder; use list_dir to see what it holds.'),
    );
    expect(await read({ path: 'missing.txt' })).toEqual(
      refusal('"missing.txt" does not exist in the workspace.'),
    );
  });

  it('describes images by type and size instead of returning their bytes', async () => {
    await writeFiles(fx.root, {
      'logo.png': pngHeader(16, 8),
      'photo.webp': Buffer.from('RIFF\0\0\0\0WEBP'),
    });
    expect(await read({ path: 'logo.png' })).toEqual(
      answer('logo.png is a PNG image, 16x8 pixels, 33 bytes. Its contents are not shown as text.'),
    );
    expect((await read({ path: 'photo.webp' })).content).toBe(
      'photo.webp is a WebP image, 12 bytes. Its contents are not shown as text.',
    );
  });

  it('says when a file is empty', async () => {
    await writeFiles(fx.root, { 'empty.txt': '' });
    expect(await read({ path: 'empty.txt' })).toEqual({ content: '(empty.txt is empty)', isError: false });
  });
});
