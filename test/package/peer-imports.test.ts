// The peer dependencies are imported the way their stated ranges need: zod through `zod/v4` (which zod
// 3.25+ and zod 4 both ship, so a zod 3 project can install agentchart), and the model SDKs and the Redis
// and PostgreSQL clients only as types or through the peer loader (so a missing package is one clear error,
// and only where it is used).
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = resolve(import.meta.dirname, '../../src');

async function sources(): Promise<Array<{ file: string; text: string }>> {
  const names = (await readdir(src, { recursive: true })).filter((name) => name.endsWith('.ts'));
  return Promise.all(
    names.map(async (name) => ({ file: name, text: await readFile(join(src, name), 'utf8') })),
  );
}

describe('imports of peer dependencies in src/', () => {
  it("imports zod only as 'zod/v4'", async () => {
    const files = await sources();
    expect(files.length).toBeGreaterThan(50);
    const bare = files.filter(({ text }) => /from 'zod'|import\('zod'\)/.test(text)).map(({ file }) => file);
    expect(bare).toEqual([]);
  });

  it('loads the model SDKs and the Redis and PostgreSQL clients only through the peer loader', async () => {
    const valueImport =
      /^import (?!type )[^;]*from '(@anthropic-ai\/sdk|openai|bullmq|ioredis|pg)(\/[^']*)?';/m;
    const offenders = (await sources()).filter(({ text }) => valueImport.test(text)).map(({ file }) => file);
    expect(offenders).toEqual([]);
    const loaders = (await sources()).filter(
      ({ file, text }) => file !== 'providers/peer-package.ts' && /loadPeerPackages?\(/.test(text),
    );
    expect(loaders.map(({ file }) => file).sort()).toEqual([
      'bullmq/peers.ts',
      'postgres/peers.ts',
      'providers/anthropic.ts',
      'providers/openai.ts',
    ]);
  });
});
