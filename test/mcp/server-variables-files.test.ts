// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are config text; `${VAR}` is what they are about.
// `${VAR}` references in the files that name MCP servers, through the real readers: `.mcp.json` for
// `agentchart mcp list` (real processes, a real HTTP server behind a proxy that records the headers it
// got), and the settings files. The environment is the one given to the reader; an expanded token reaches
// the server and never the session log or `agentchart config`.
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMcpConfig } from '../../src/cli/mcp-config.ts';
import { ConfigError } from '../../src/errors/config-error.ts';
import { loadSettings } from '../../src/settings/settings-file.ts';
import { runCli } from '../cli/cli-harness.ts';
import {
  faultServerBin,
  isAlive,
  startEverythingHttp,
  startedPids,
  tempDir,
} from '../support/mcp-servers.ts';
import { mcpRig } from './mcp-kit.ts';

const token = 's3cret-token-4711';

/** A loopback proxy in front of `target` that keeps the headers of every request it forwards. */
async function recordingProxy(target: string) {
  const seen: IncomingHttpHeaders[] = [];
  const upstream = new URL(target);
  const server = createServer((incoming, outgoing) => {
    seen.push(incoming.headers);
    const forwarded = request(
      { host: upstream.hostname, port: upstream.port, path: incoming.url, method: incoming.method },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    for (const [name, value] of Object.entries(incoming.headers))
      if (name !== 'host' && value !== undefined) forwarded.setHeader(name, value);
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  const close = () =>
    new Promise<void>((done) => {
      server.closeAllConnections();
      server.close(() => done());
    });
  return { url: `http://127.0.0.1:${port}/mcp`, seen, close };
}

describe('.mcp.json with ${VAR} references', () => {
  it('agentchart mcp list starts the server its command, args and env name once expanded', async () => {
    const dir = await tempDir('mcp-vars');
    const fault = {
      command: '${NODE}',
      args: ['${FAULT_SERVER}'],
      env: { FAULT_LOG: '${LOG_DIR}/fault.log' },
    };
    await writeFile(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { fault } }));
    const variables = { NODE: process.execPath, FAULT_SERVER: faultServerBin, LOG_DIR: dir };
    const run = await runCli(['mcp', 'list', '--cwd', dir, '--workspace-mcp'], { env: variables });
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout.split('\n')[1]).toMatch(/^ {2}fault \(stdio, pid \d+\): connected, 5 tool\(s\)$/);
    // The server wrote where the expanded FAULT_LOG pointed, and is gone again.
    expect(startedPids(join(dir, 'fault.log')).map(isAlive)).toEqual([false]);
  });

  it('agentchart mcp list refuses a variable that is unset and has no default, naming it', async () => {
    const dir = await tempDir('mcp-vars');
    const fault = { command: 'node', args: ['${FAULT_SERVER}'], env: { FAULT_LOG: '${LOG_DIR}/fault.log' } };
    await writeFile(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { fault } }));
    const run = await runCli(['mcp', 'list', '--cwd', dir], { env: { FAULT_SERVER: faultServerBin } });
    expect([run.code, run.stdout, run.stderr]).toEqual([
      2,
      '',
      `agentchart: ${join(dir, '.mcp.json')}: MCP server "fault" uses \${LOG_DIR} in env.FAULT_LOG, but ` +
        'LOG_DIR is not set and has no default (set it, or write ${LOG_DIR:-default}) [config]\n',
    ]);
  });

  describe('an HTTP server with a token in its headers', () => {
    let everything: Awaited<ReturnType<typeof startEverythingHttp>>;
    let proxy: Awaited<ReturnType<typeof recordingProxy>>;
    beforeAll(async () => {
      everything = await startEverythingHttp();
      proxy = await recordingProxy(everything.url);
    });
    afterAll(async () => {
      await proxy.close();
      await everything.stop();
    });

    it('sends the expanded header, and the session log holds neither form of it', async () => {
      const dir = await tempDir('mcp-vars');
      const api = {
        url: '${MCP_URL:-http://127.0.0.1:1/mcp}',
        headers: { Authorization: 'Bearer ${MCP_TOKEN}' },
      };
      await writeFile(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { api } }));
      const { servers } = await readMcpConfig(dir, { variables: { MCP_URL: proxy.url, MCP_TOKEN: token } });
      expect(servers).toEqual({ api: { url: proxy.url, headers: { Authorization: `Bearer ${token}` } } });
      const rig = await mcpRig(servers, [
        { toolCalls: [{ id: 'echo', name: 'mcp__api__echo', input: { message: 'hi' } }] },
        { text: 'Done.' },
      ]);
      try {
        await rig.agent.run('Echo.');
        expect(proxy.seen.length).toBeGreaterThan(0);
        expect(new Set(proxy.seen.map((headers) => headers.authorization))).toEqual(
          new Set([`Bearer ${token}`]),
        );
        const log = JSON.stringify(rig.agent.log());
        expect([log.includes(token), log.includes('MCP_TOKEN')]).toEqual([false, false]);
        const start = rig.agent.log()[0]!.data.config as { mcp: Record<string, Record<string, unknown>> };
        expect(Object.keys(start.mcp)).toEqual(['api']);
        expect(Object.keys(start.mcp.api!)).toEqual(['transport', 'tools']);
        expect(start.mcp.api!.transport).toBe('http');
      } finally {
        await rig.system.dispose();
      }
    });
  });
});

describe('settings mcpServers with ${VAR} references', () => {
  const server = { url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer ${MCP_TOKEN}' } };

  async function folders() {
    const home = await tempDir('vars-home');
    const workspace = await tempDir('vars-workspace');
    const write = async (root: string, value: unknown) => {
      await mkdir(join(root, '.agentchart'), { recursive: true });
      await writeFile(join(root, '.agentchart', 'settings.json'), JSON.stringify(value));
    };
    return { home, workspace, write };
  }

  it("expands the servers that start from the reader's environment; untrusted ones need no variables", async () => {
    const { home, workspace, write } = await folders();
    await write(home, { mcpServers: { mine: server } });
    await write(workspace, { mcpServers: { theirs: { command: '${UNSET_TOOL}' } } });
    const settings = await loadSettings(workspace, { HOME: home, MCP_TOKEN: token });
    expect([settings.mcpServers, settings.untrustedMcpServers]).toEqual([
      { mine: { url: server.url, headers: { Authorization: `Bearer ${token}` } } },
      ['theirs'],
    ]);
    // Where a value came from is shown as the file has it.
    expect(settings.sources.map((source) => [source.key, source.value])).toEqual([
      ['mcpServers.mine', server],
      ['mcpServers.theirs', { command: '${UNSET_TOOL}' }],
    ]);
    const trusted = loadSettings(workspace, { HOME: home, MCP_TOKEN: token }, { trustWorkspaceMcp: true });
    await expect(trusted).rejects.toThrow(ConfigError);
    await expect(trusted).rejects.toThrow(
      `${join(workspace, '.agentchart', 'settings.json')}: MCP server "theirs" uses \${UNSET_TOOL} in command, ` +
        'but UNSET_TOOL is not set and has no default (set it, or write ${UNSET_TOOL:-default})',
    );
  });

  it('agentchart config prints the servers as written, never the expanded token', async () => {
    const { home, workspace, write } = await folders();
    await write(home, { mcpServers: { mine: server } });
    const run = await runCli(['config', '--cwd', workspace, '--json'], {
      env: { HOME: home, MCP_TOKEN: token },
    });
    expect(run.code).toBe(0);
    expect(run.stdout.includes(token)).toBe(false);
    expect(JSON.parse(run.stdout).settings.mcpServers).toEqual({ mine: server });
  });
});
