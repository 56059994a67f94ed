// The MCP servers the tests start: the two third-party reference servers installed as dev dependencies
// (server-everything over stdio and Streamable HTTP, server-filesystem over stdio) and agentchart's own
// fault server. Everything runs locally; no network is needed.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { McpStdioServer } from '../../src/mcp/server-config.ts';

const root = resolve(import.meta.dirname, '../..');
const modules = join(root, 'node_modules/@modelcontextprotocol');
export const everythingBin = join(modules, 'server-everything/dist/index.js');
export const filesystemBin = join(modules, 'server-filesystem/dist/index.js');
export const faultServerBin = join(root, 'test/fixtures/mcp/fault-server.mjs');

export function everythingStdio(): McpStdioServer {
  return { command: process.execPath, args: [everythingBin, 'stdio'] };
}

export function filesystemStdio(dir: string): McpStdioServer {
  return { command: process.execPath, args: [filesystemBin, dir] };
}

/** The fault server; its starts and the cancellations it saw are appended to `logFile`. */
export function faultServer(logFile: string, env: Record<string, string> = {}): McpStdioServer {
  return { command: process.execPath, args: [faultServerBin], env: { FAULT_LOG: logFile, ...env } };
}

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `agentchart-${prefix}-`));
}

/** The lines the fault server appended to its log (none when it never started). */
export function faultLines(logFile: string): string[] {
  try {
    return readFileSync(logFile, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** The pids of the fault servers that started and wrote to `logFile`. */
export function startedPids(logFile: string): number[] {
  return faultLines(logFile)
    .filter((line) => line.startsWith('started '))
    .map((line) => Number(line.slice('started '.length)));
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/**
 * server-everything over HTTP on a loopback port (it has no port flag: PORT in its env): Streamable HTTP
 * at /mcp, or the older HTTP+SSE transport at /sse.
 */
export async function startEverythingHttp(
  transport: 'streamableHttp' | 'sse' = 'streamableHttp',
): Promise<{ url: string; process: ChildProcess; stop: () => Promise<void> }> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const child = spawn(process.execPath, [everythingBin, transport], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const listening = await new Promise<boolean>((done) => {
      let said = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        said += chunk.toString();
        if (/listening on port|running on port/i.test(said)) done(true);
        if (said.includes('already in use')) done(false);
      });
      child.once('exit', () => done(false));
    });
    if (listening) {
      const stop = async () => {
        if (child.exitCode !== null) return;
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGTERM');
        await exited;
      };
      const path = transport === 'sse' ? 'sse' : 'mcp';
      return { url: `http://127.0.0.1:${port}/${path}`, process: child, stop };
    }
    child.kill('SIGKILL');
    if (attempt === 3) throw new Error('server-everything did not start over HTTP');
  }
}
