// Real Redis and PostgreSQL for the tests that need them (TOOLCHAIN.md §15): Debian's binaries, started
// on free loopback ports in short temporary folders and stopped by the test that started them. Never the
// default ports. PostgreSQL refuses to run as root, so as root it runs as the `postgres` user. Servers a
// killed test run left behind are stopped by the next start (each folder names the runner's pid).
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';

const run = promisify(execFile);
export const redisBinary = '/usr/bin/redis-server';
const postgresRoot = '/usr/lib/postgresql';

/** The newest installed PostgreSQL's bin folder (`/usr/lib/postgresql/<major>/bin`), if any. */
function postgresBin(): string | undefined {
  if (!existsSync(postgresRoot)) return undefined;
  const majors = readdirSync(postgresRoot)
    .filter((name) => existsSync(join(postgresRoot, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] === undefined ? undefined : join(postgresRoot, majors[0], 'bin');
}

const bin = postgresBin();
export const hasServers = existsSync(redisBinary) && bin !== undefined;
export const noServers =
  'no redis-server or PostgreSQL binaries (apt-get install -y redis-server postgresql; .ci/run does)';
/** In CI the servers must be there (.ci/run installs them): their tests fail rather than skip. */
export const serversRequired = process.env.CI === 'true';

const isRoot = process.getuid?.() === 0;
/** Short, so the PostgreSQL socket path stays under 107 bytes. */
const tempRoot = '/tmp';
const prefix = 'acsrv-';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // ESRCH: no such process (EPERM cannot happen for our own runner pids as root).
    return false;
  }
}

/** Stops servers whose test runner died without stopping them, and removes their folders. */
async function reapStale(): Promise<void> {
  for (const name of await readdir(tempRoot)) {
    if (!name.startsWith(prefix)) continue;
    const dir = join(tempRoot, name);
    // The owner is in the folder's name, so a folder another runner has just made is never taken for stale
    // (a pid file written after mkdtemp left a moment in which a concurrent reap removed a live folder).
    const owner = Number(name.slice(prefix.length).split('-')[0]);
    if (Number.isFinite(owner) && owner > 0 && alive(owner)) continue;
    const redisPid = Number(await readFile(join(dir, 'redis.pid'), 'utf8').catch(() => 'NaN'));
    if (Number.isFinite(redisPid) && alive(redisPid)) process.kill(redisPid, 'SIGKILL');
    if (existsSync(join(dir, 'pg', 'postmaster.pid')))
      await asPostgres(['pg_ctl', '-D', join(dir, 'pg'), '-m', 'immediate', 'stop']).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

async function serverDir(): Promise<string> {
  await reapStale();
  return mkdtemp(join(tempRoot, `${prefix}${process.pid}-`));
}

function asPostgres(command: string[]): Promise<{ stdout: string; stderr: string }> {
  const [tool, ...args] = command;
  const path = join(bin!, tool!);
  return isRoot ? run('runuser', ['-u', 'postgres', '--', path, ...args]) : run(path, args);
}

export type RedisServer = {
  url: string;
  /** Kills the server (SIGKILL); `resume()` starts it again on the same port (with its data if persistent). */
  pause(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
};

/**
 * A Redis on a free loopback port, as a child of this process. `persistent`: every write goes to an
 * append-only file synced at once, so a restart (even after SIGKILL) keeps every queued job.
 */
export async function startRedis(options: { persistent?: boolean } = {}): Promise<RedisServer> {
  const dir = await serverDir();
  const port = await freePort();
  let child: ReturnType<typeof spawn> | undefined;
  const start = async () => {
    child = spawn(
      redisBinary,
      [
        ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir],
        ...(options.persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    await writeFile(join(dir, 'redis.pid'), String(child.pid));
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) resolve();
      };
      child!.stdout!.on('data', onData);
      child!.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${output}`)));
    });
  };
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill(signal);
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    pause: () => stop('SIGKILL'),
    resume: start,
    async stop() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export type PostgresServer = {
  /** `postgres://postgres@127.0.0.1:<port>/<database>` */
  urlOf(database: string): string;
  /** A new empty database (a cheap file copy of template1). */
  createDatabase(name: string): Promise<string>;
  /** Stops the server but keeps its data, so `resume()` brings the same databases back on the same port. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
};

/** A PostgreSQL cluster in a temporary folder on a free loopback port, trust auth for `postgres`. */
export async function startPostgres(): Promise<PostgresServer> {
  const dir = await serverDir();
  const data = join(dir, 'pg');
  await mkdir(data);
  await chmod(data, 0o700);
  if (isRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout), Number(group));
    await chown(data, Number(stdout), Number(group));
  }
  await asPostgres([
    'initdb',
    '-D',
    data,
    '-A',
    'trust',
    '-U',
    'postgres',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  const port = await freePort();
  const start = () =>
    asPostgres([
      'pg_ctl',
      '-D',
      data,
      '-w',
      '-l',
      join(dir, 'pg.log'),
      '-o',
      `-h 127.0.0.1 -p ${port} -k ${dir} -F`,
      'start',
    ]);
  const halt = () => asPostgres(['pg_ctl', '-D', data, '-m', 'fast', 'stop']);
  await start();
  const urlOf = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    urlOf,
    async createDatabase(name) {
      await asPostgres([
        'psql',
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
        '-U',
        'postgres',
        '-c',
        `CREATE DATABASE "${name}" STRATEGY = FILE_COPY`,
      ]);
      return urlOf(name);
    },
    pause: async () => {
      await halt();
    },
    resume: async () => {
      await start();
    },
    async stop() {
      await halt().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The servers a suite started: there once its `beforeAll` has run. */
export type SuiteServers = { postgres: PostgresServer; redis: RedisServer };

/**
 * Registers the start of PostgreSQL (and Redis, unless `redis: false`) in the calling `describe`'s
 * `beforeAll` and their stop in its `afterAll`. Registered first, the stop runs after the suite's own
 * `afterAll` hooks (Vitest runs after-hooks in reverse), so workers are gone before their servers are.
 */
export function useServers(options: { redis?: false | { persistent?: boolean } } = {}): SuiteServers {
  const servers = {} as SuiteServers;
  const { redis = {} } = options;
  beforeAll(async () => {
    const [postgres, started] = await Promise.all([startPostgres(), redis ? startRedis(redis) : undefined]);
    servers.postgres = postgres;
    if (started) servers.redis = started;
  }, 30_000);
  afterAll(async () => {
    await servers.redis?.stop();
    await servers.postgres?.stop();
  }, 30_000);
  return servers;
}
