// The MCP client against the reference server @modelcontextprotocol/server-everything, a real third-party
// server installed as a dev dependency, over stdio and over Streamable HTTP on a loopback port: its tools
// reach the model with their schemas as given, results of every kind become what the model reads,
// progress is live, a long call can be cancelled, and annotations decide access.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../src/mcp/server-config.ts';
import { isEvent } from '../../src/session/types.ts';
import { everythingStdio, startEverythingHttp } from '../support/mcp-servers.ts';
import { mcpRig, results, until } from './mcp-kit.ts';

let http: Awaited<ReturnType<typeof startEverythingHttp>>;
beforeAll(async () => {
  http = await startEverythingHttp();
});
afterAll(async () => {
  await http.stop();
});

const transports: { name: string; config: () => McpServerConfig }[] = [
  { name: 'stdio', config: everythingStdio },
  { name: 'Streamable HTTP', config: () => ({ url: http.url }) },
];

describe.each(transports)('server-everything over $name', ({ config }) => {
  it('offers its tools as mcp__everything__<tool> with the schema as given, and reads every kind of result', async () => {
    const rig = await mcpRig({ everything: config() }, [
      {
        toolCalls: [
          { id: 'echo', name: 'mcp__everything__echo', input: { message: 'hello' } },
          { id: 'sum', name: 'mcp__everything__get-sum', input: { a: 2, b: 3 } },
          { id: 'image', name: 'mcp__everything__get-tiny-image', input: {} },
          {
            id: 'resource',
            name: 'mcp__everything__get-resource-reference',
            input: { resourceType: 'Text', resourceId: 2 },
          },
          { id: 'bad-args', name: 'mcp__everything__get-sum', input: { a: 'two' } },
          {
            id: 'is-error',
            name: 'mcp__everything__gzip-file-as-resource',
            input: { name: 'x.gz', data: 'http://127.0.0.1:1/blocked' },
          },
        ],
      },
      { text: 'Done.' },
    ]);
    try {
      await rig.agent.run('Use the tools.');
      const offered = rig.model.requests[0]!.tools;
      const echo = offered.find((tool) => tool.name === 'mcp__everything__echo');
      // The server's JSON Schema, untouched (its own $schema line included).
      expect(echo?.inputSchema).toEqual({
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { message: { type: 'string', description: 'Message to echo' } },
        required: ['message'],
      });
      // A tool that only runs as an MCP task is not offered.
      expect(offered.map((tool) => tool.name)).not.toContain('mcp__everything__simulate-research-query');
      expect(offered.length).toBeGreaterThanOrEqual(10);
      const got = results(rig.agent.log());
      expect(got.echo).toEqual(['ok', 'Echo: hello']);
      expect(got.sum).toEqual(['ok', 'The sum of 2 and 3 is 5.']);
      expect(got.image![0]).toBe('ok');
      expect(got.image![1]).toMatch(/\[The image\/png image is a PNG image, \d+x\d+ pixels, \d+ bytes\./);
      expect(got.resource![1]).toMatch(/\[resource demo:\/\/resource\/dynamic\/text\/2 \(text\/plain\)\]\n/);
      expect(got['bad-args']![0]).toBe('error');
      expect(got['bad-args']![1]).toMatch(/^Invalid arguments for mcp__everything__get-sum:/);
      expect(got['is-error']![0]).toBe('error');
      const config0 = rig.agent.log()[0]!.data.config as { mcp: Record<string, { tools: unknown[] }> };
      expect(Object.keys(config0.mcp)).toEqual(['everything']);
    } finally {
      await rig.system.dispose();
    }
  });

  it('publishes progress notifications as tool.progress live events while a long call runs', async () => {
    const rig = await mcpRig({ everything: config() }, [
      {
        toolCalls: [
          {
            id: 'long',
            name: 'mcp__everything__trigger-long-running-operation',
            input: { duration: 0.3, steps: 3 },
          },
        ],
      },
      { text: 'Done.' },
    ]);
    try {
      await rig.agent.run('Run the long operation.');
      const progress = rig.live
        .filter((event) => event.type === 'tool.progress')
        .map((event) => event.type === 'tool.progress' && event.progress);
      // The SDK hands notifications on a microtask later than responses, so the last progress, sent just
      // before the result, can arrive after the call is over and is then dropped by the SDK.
      const sent = [1, 2, 3].map((step) => ({ progress: step, total: 3 }));
      expect(progress.length).toBeGreaterThanOrEqual(2);
      expect(progress).toEqual(sent.slice(0, progress.length));
      expect(results(rig.agent.log()).long![0]).toBe('ok');
    } finally {
      await rig.system.dispose();
    }
  });

  it('a cancel during a long call ends it aborted', async () => {
    const rig = await mcpRig({ everything: config() }, [
      {
        toolCalls: [
          {
            id: 'long',
            name: 'mcp__everything__trigger-long-running-operation',
            input: { duration: 60, steps: 600 },
          },
        ],
      },
    ]);
    try {
      const running = rig.agent.run('Run it.');
      await until(() => rig.live.some((event) => event.type === 'tool.progress'), 'the first progress');
      rig.agent.cancel();
      const result = await running;
      expect(result.reason).toBe('canceled');
      expect(results(rig.agent.log()).long![0]).toBe('aborted');
    } finally {
      await rig.system.dispose();
    }
  });

  it("maps readOnlyHint to read access: with approve: 'deny' a write tool is denied, a rule allows it", async () => {
    const script = [
      {
        toolCalls: [
          { id: 'read', name: 'mcp__everything__echo', input: { message: 'x' } },
          { id: 'write', name: 'mcp__everything__toggle-simulated-logging', input: {} },
        ],
      },
      { text: 'Done.' },
    ];
    const headless = await mcpRig({ everything: config() }, script, {
      permissionMode: 'default',
      approve: 'deny',
    });
    const allowed = await mcpRig({ everything: config() }, script, {
      permissionMode: 'default',
      permissions: { allow: ['mcp__everything__*'] },
    });
    try {
      await headless.agent.run('Go.');
      await allowed.agent.run('Go.');
      const denied = results(headless.agent.log());
      expect([denied.read![0], denied.write![0]]).toEqual(['ok', 'denied']);
      const ran = results(allowed.agent.log());
      expect([ran.read![0], ran.write![0]]).toEqual(['ok', 'ok']);
      const decided = allowed.agent.log().filter((event) => isEvent(event, 'approval.decided'));
      expect(decided.map((event) => [event.data.callId, event.data.by])).toEqual([
        ['read', 'rule'],
        ['write', 'rule'],
      ]);
    } finally {
      await headless.system.dispose();
      await allowed.system.dispose();
    }
  });
});

describe('server-everything over the older HTTP+SSE transport', () => {
  it('is reached through the SSE fallback when Streamable HTTP is refused, and with type "sse" directly', async () => {
    const sse = await startEverythingHttp('sse');
    const script = [
      { toolCalls: [{ id: 'echo', name: 'mcp__old__echo', input: { message: 'over sse' } }] },
      { text: 'Done.' },
    ];
    const fallback = await mcpRig({ old: { url: sse.url } }, script);
    const direct = await mcpRig({ old: { type: 'sse', url: sse.url } }, script);
    try {
      await fallback.agent.run('Echo.');
      await direct.agent.run('Echo.');
      expect(fallback.agent.mcpServers()[0]!.transport).toBe('sse');
      expect(results(fallback.agent.log()).echo).toEqual(['ok', 'Echo: over sse']);
      expect(results(direct.agent.log()).echo).toEqual(['ok', 'Echo: over sse']);
    } finally {
      await fallback.system.dispose();
      await direct.system.dispose();
      await sse.stop();
    }
  });
});
