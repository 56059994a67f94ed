// `agentchart mcp list` (the workspace's .mcp.json, or --config) and `agentchart demo --mcp-config`:
// real servers started once, their state and tools shown, and every process gone afterwards.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { everythingStdio, faultServer, isAlive, startedPids, tempDir } from '../support/mcp-servers.ts';
import { runCli } from './cli-harness.ts';

describe('agentchart mcp list', () => {
  it('shows each server of .mcp.json with its state and tools, and a server that failed to start', async () => {
    const dir = await tempDir('mcp-list');
    const logFile = join(dir, 'fault.log');
    const mcpServers = {
      everything: everythingStdio(),
      fault: faultServer(logFile),
      broken: faultServer(join(dir, 'broken.log'), { FAULT_START: 'exit' }),
    };
    await writeFile(join(dir, '.mcp.json'), JSON.stringify({ mcpServers }));
    const run = await runCli(['mcp', 'list', '--cwd', dir, '--workspace-mcp']);
    expect(run.code).toBe(1);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`MCP servers in ${join(dir, '.mcp.json')}:`);
    expect(lines).toContainEqual(
      expect.stringMatching(/^ {2}everything \(stdio, pid \d+\): connected, 12 tool\(s\)$/),
    );
    expect(lines).toContain('    mcp__everything__echo [read] Echoes back the input string');
    expect(lines).toContain(
      '    not offered: simulate-research-query (it runs only as an MCP task, which agentchart does not call)',
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^ {4}not offered: bad_schema \(its input schema cannot be used: /),
    );
    expect(lines).toContain('  broken: failed to start');
    expect(lines).toContainEqual(expect.stringMatching(/^ {4}MCP server "broken" did not start: /));
    expect(startedPids(logFile).map(isAlive)).toEqual([false]);
  });

  it("starts none of the workspace's own servers without --workspace-mcp", async () => {
    // A checked-out repository's .mcp.json could name any command: listing it must not run it.
    const dir = await tempDir('mcp-list');
    const logFile = join(dir, 'fault.log');
    const mcpServers = { fault: faultServer(logFile), remote: { url: 'http://127.0.0.1:9/mcp' } };
    await writeFile(join(dir, '.mcp.json'), JSON.stringify({ mcpServers }));
    const run = await runCli(['mcp', 'list', '--cwd', dir]);
    expect([run.code, run.stdout, run.stderr]).toEqual([
      1,
      `MCP servers in ${join(dir, '.mcp.json')}:\n  fault (stdio): not started\n  remote (http): not started\n`,
      "agentchart: not starting the MCP servers of the workspace's .mcp.json (fault, remote); pass --workspace-mcp to trust them\n",
    ]);
    const json = await runCli(['mcp', 'list', '--cwd', dir, '--json']);
    expect(JSON.parse(json.stdout)).toEqual({
      config: join(dir, '.mcp.json'),
      servers: [
        { server: 'fault', transport: 'stdio', started: false },
        { server: 'remote', transport: 'http', started: false },
      ],
    });
    expect(startedPids(logFile)).toEqual([]);
  });

  it('--json prints one object; no servers configured is said plainly', async () => {
    const dir = await tempDir('mcp-list');
    const empty = await runCli(['mcp', 'list', '--cwd', dir]);
    expect([empty.code, empty.stdout]).toEqual([
      0,
      `No MCP servers configured (${join(dir, '.mcp.json')}).\n`,
    ]);
    const config = join(dir, 'servers.json');
    await writeFile(config, JSON.stringify({ mcpServers: { fault: faultServer(join(dir, 'f.log')) } }));
    const json = await runCli(['mcp', 'list', '--cwd', dir, '--config', 'servers.json', '--json']);
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as { servers: { server: string; status: { state: string } }[] };
    expect(parsed.servers.map((entry) => [entry.server, entry.status.state])).toEqual([
      ['fault', 'connected'],
    ]);
    await writeFile(config, JSON.stringify({ mcpServers: { fault: { command: 5 } } }));
    const bad = await runCli(['mcp', 'list', '--cwd', dir, '--config', 'servers.json']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      `agentchart: ${config}: mcpServers.fault.command must be a non-empty string, got 5 [config]\n`,
    );
  });
});

describe('agentchart demo --mcp-config', () => {
  it("lists the MCP server's tools before the demo runs", async () => {
    const dir = await tempDir('mcp-demo');
    const logFile = join(dir, 'fault.log');
    await writeFile(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { fault: faultServer(logFile) } }));
    const run = await runCli(['demo', '--mcp-config', 'mcp.json'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'MCP server fault (stdio) offers 5 tool(s):\n  mcp__fault__echo [read]\n  mcp__fault__crash [write]\n',
    );
    expect(startedPids(logFile).map(isAlive)).toEqual([false]);
  });
});
