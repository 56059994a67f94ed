// `import('agentchart')` loads what src/index.ts reaches through static imports. A program that uses no
// MCP server, no model SDK and no server-backed store must not pay for them: the MCP SDK alone took
// 0.25 s of the entry's 0.7 s. Each is loaded where it is first used (the MCP SDK when an agent starts
// servers, a model SDK by its subpath, pg/bullmq/ioredis by theirs).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { staticClosure } from '../support/static-imports.ts';

const entry = join(dirname(fileURLToPath(import.meta.url)), '../../src/index.ts');

describe("what import('agentchart') loads", () => {
  it('is the runtime and its small libraries: no MCP SDK, no model SDK, no server client', () => {
    const { packages, files } = staticClosure(entry);
    expect(files).toBeGreaterThan(100);
    const libraries = [...packages].filter((name) => !name.startsWith('node:')).sort();
    // An addition here is a decision: say why the entry needs it at import time.
    expect(libraries).toEqual([
      '@cfworker/json-schema',
      'diff',
      'ignore',
      'nanoid',
      'picomatch',
      're2js',
      'tinyglobby',
      'xstate',
      'zod/v4',
    ]);
  });

  it('reaches the MCP SDK only through the modules that load it on first use', () => {
    const lazy = ['mcp/lazy-connect.ts', 'mcp/schema-validators.ts'];
    for (const file of lazy) {
      const { packages } = staticClosure(join(dirname(entry), file));
      expect(
        [...packages].filter((name) => name.startsWith('@modelcontextprotocol/')),
        file,
      ).toEqual([]);
    }
    const { packages } = staticClosure(join(dirname(entry), 'mcp/sdk-connection.ts'));
    expect(packages.has('@modelcontextprotocol/sdk/client/index.js')).toBe(true);
  });
});
