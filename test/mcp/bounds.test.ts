// What a server lists that is too much or goes wrong, against agentchart's fault server: thousands of
// tools (the unknown-tool result names the closest few), a server that exits when asked for its tools, and
// input schemas nested deeper than a log holds (skipped with the reason, like one that cannot compile).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpServerError } from '../../src/errors/mcp-server-error.ts';
import { scripted } from '../../src/providers/scripted.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { memoryStore } from '../../src/session/memory-store.ts';
import { faultServer, isAlive, startedPids, tempDir } from '../support/mcp-servers.ts';
import { mcpRig, results } from './mcp-kit.ts';

const offered = [
  'mcp__fault__echo',
  'mcp__fault__crash',
  'mcp__fault__hang',
  'mcp__fault__add_tool',
  'mcp__fault__fail',
];

describe('a server with a thousand tools', () => {
  it('an unknown tool is told the 30 names closest to it, nearest first, and how many more there are', async () => {
    const logFile = join(await tempDir('fault'), 'fault.log');
    const rig = await mcpRig({ fault: faultServer(logFile, { FAULT_TOOLS: '1000' }) }, [
      { toolCalls: [{ id: 'typo', name: 'mcp__fault__bulk_5x', input: {} }] },
      { text: 'No such tool.' },
    ]);
    try {
      await rig.agent.run('Call it.');
      expect(rig.agent.mcpServers()[0]!.tools).toHaveLength(1005);
      // Distance 1 (bulk_5, bulk_50..59), then distance 2 in name order (bulk_0, bulk_1, bulk_10..15,
      // bulk_150..159 by an inserted digit, bulk_16, …).
      const bulk = (suffixes: string[]) => suffixes.map((suffix) => `mcp__fault__bulk_${suffix}`);
      const digits = (prefix: string, to = 9) => Array.from({ length: to + 1 }, (_, d) => `${prefix}${d}`);
      const closest = bulk(['5', ...digits('5'), '0', '1', ...digits('1', 5), ...digits('15'), '16']);
      expect(results(rig.agent.log()).typo).toEqual([
        'error',
        `Unknown tool "mcp__fault__bulk_5x". 1005 tools are available; the 30 closest to that name: ${closest.join(', ')} (and 975 more).`,
      ]);
    } finally {
      await rig.system.dispose();
    }
  });
});

describe('a server that fails after the handshake', () => {
  it('exiting on tools/list rejects createAgent with an McpServerError naming it, with its stderr; nothing stays', async () => {
    const logFile = join(await tempDir('fault'), 'fault.log');
    const store = memoryStore();
    const system = createAgentSystem({
      model: scripted([]),
      store,
      cwd: await tempDir('mcp-cwd'),
      projectInstructions: false,
      mcpServers: { lister: faultServer(logFile, { FAULT_LIST: 'exit' }) },
      approve: 'deny',
    });
    try {
      const error = await system.createAgent({ id: 'a' }).catch((caught: unknown) => caught);
      expect(McpServerError.isInstance(error)).toBe(true);
      expect((error as McpServerError).server).toBe('lister');
      expect((error as McpServerError).message).toMatch(
        /^MCP server "lister" could not list its tools: .*Connection closed.*\nIts stderr:\nfault-server: exiting instead of listing tools \(FAULT_LIST=exit\)$/s,
      );
      const [pid] = startedPids(logFile);
      expect(pid).toBeGreaterThan(0);
      expect(isAlive(pid!)).toBe(false);
      expect(await store.list()).toEqual([]);
    } finally {
      await system.dispose();
    }
  });
});

describe('input schemas nested deeper than a log holds', () => {
  for (const depth of [150, 1000]) {
    it(`a schema ${depth} levels deep is skipped with the reason; the other tools are offered and logged`, async () => {
      const logFile = join(await tempDir('fault'), 'fault.log');
      const rig = await mcpRig({ fault: faultServer(logFile, { FAULT_DEPTH: String(depth) }) }, [
        { toolCalls: [{ id: 'e', name: 'mcp__fault__echo', input: { text: 'still here' } }] },
        { text: 'Done.' },
      ]);
      try {
        const [status] = rig.agent.mcpServers();
        expect(status!.tools.map((tool) => tool.name)).toEqual(offered);
        // Listed order: `deep` comes last, but a depth is known from the listing, before compiling.
        expect(status!.skipped).toEqual([
          {
            tool: 'deep',
            reason: 'its input schema nests more than 100 levels deep, more than a session log holds',
          },
          { tool: 'bad_schema', reason: expect.stringMatching(/^its input schema cannot be used: /) },
        ]);
        await rig.agent.run('Echo.');
        expect(results(rig.agent.log()).e).toEqual(['ok', 'still here']);
        expect(rig.model.requests[0]!.tools.map((tool) => tool.name)).toEqual(offered);
      } finally {
        await rig.system.dispose();
      }
    });
  }
});
