import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  describeSize,
  readRegularFile,
  readRegularText,
  readRegularTextSync,
} from '../../src/core/read-limited.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentchart-read-limited-'));
  await writeFile(join(dir, 'ten.txt'), 'héllo wor');
  await symlink(join(dir, 'ten.txt'), join(dir, 'link.txt'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

// Both readers, so the synchronous one (settings) keeps the same rules as the other.
const readers = [
  ['readRegularText', readRegularText],
  ['readRegularTextSync', async (file: string, limit: number) => readRegularTextSync(file, limit)],
] as const;

describe.each(readers)('%s', (_name, read) => {
  it('reads a file of exactly the limit, through a symbolic link too', async () => {
    // "héllo wor" is 10 bytes in UTF-8.
    expect(await read(join(dir, 'ten.txt'), 10)).toEqual({ text: 'héllo wor' });
    expect(await read(join(dir, 'link.txt'), 10)).toEqual({ text: 'héllo wor' });
  });

  it('refuses a file one byte over the limit without reading it, saying its size and the limit', async () => {
    expect(await read(join(dir, 'ten.txt'), 9)).toEqual({
      refused: 'is 10 bytes, over the limit of 9 bytes',
      isDirectory: false,
    });
  });

  it('stops one byte past the limit when the size on record is wrong (a /proc file says 0)', async () => {
    expect(await read('/proc/self/status', 16)).toEqual({
      refused: 'holds more than the limit of 16 bytes',
      isDirectory: false,
    });
    const status = await read('/proc/self/status', 1024 * 1024);
    expect('text' in status && status.text.startsWith('Name:')).toBe(true);
  });

  it('refuses a folder and a device by what they are; a missing file rejects with ENOENT', async () => {
    expect(await read(dir, 100)).toEqual({ refused: 'is a folder, not a file', isDirectory: true });
    expect(await read('/dev/zero', 100)).toEqual({
      refused: 'is a character device, not a file',
      isDirectory: false,
    });
    await expect(read(join(dir, 'missing'), 100)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('readRegularFile', () => {
  it('gives the bytes as they are, not decoded', async () => {
    await writeFile(join(dir, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    expect(await readRegularFile(join(dir, 'latin1.txt'), 4)).toEqual({
      bytes: Buffer.from([0x63, 0x61, 0x66, 0xe9]),
    });
  });
});

describe('describeSize', () => {
  it('names bytes, KiB and MiB, whole numbers without a fraction', () => {
    expect(
      [0, 1023, 1024, 1536, 1024 * 1024, 2.5 * 1024 * 1024, 300 * 1024 * 1024].map(describeSize),
    ).toEqual(['0 bytes', '1023 bytes', '1 KiB', '1.5 KiB', '1 MiB', '2.5 MiB', '300 MiB']);
  });
});
