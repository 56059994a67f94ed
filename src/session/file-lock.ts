import { access, link, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { ConfigError } from '../errors/config-error.ts';
import type { SessionLock } from './types.ts';

type Holder = { pid: number; host: string; claim?: number };

// Tells this process's locks apart (temporary names, and which claim a release may remove).
let claims = 0;

/**
 * Takes `<file>` as an exclusive lock for this process. The holder's pid and host are written to a
 * temporary file first and hard-linked into place, so a lock file is never seen half written, and
 * creating the link fails if another process holds the lock. A lock left by a crashed process on this
 * host (its pid is gone) is taken over; one held by a live process, or by another host, is refused.
 */
export async function acquireFileLock(file: string, what: string): Promise<SessionLock> {
  const holder: Holder = { pid: process.pid, host: hostname(), claim: ++claims };
  const temp = `${file}.${holder.pid}.${holder.claim}.tmp`;
  await writeFile(temp, `${JSON.stringify(holder)}\n`);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await link(temp, file);
        return { release: () => releaseIfOurs(file, holder) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const current = await readHolder(file);
        if (current && attempt === 0 && !isAlive(current)) {
          await rm(file, { force: true });
          continue;
        }
        throw new ConfigError(
          `${what} is held by a live agent` +
            (current ? ` (pid ${current.pid} on ${current.host})` : '') +
            `; dispose that agent first, or delete ${file} if its process is gone`,
        );
      }
    }
  } finally {
    await rm(temp, { force: true });
  }
}

async function readHolder(file: string): Promise<Holder | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<Holder>;
    return typeof parsed.pid === 'number' && typeof parsed.host === 'string'
      ? {
          pid: parsed.pid,
          host: parsed.host,
          ...(typeof parsed.claim === 'number' ? { claim: parsed.claim } : {}),
        }
      : undefined;
  } catch {
    // Gone meanwhile, or not ours to read: treat as unknown, which is never taken over.
    return undefined;
  }
}

/** Removes the lock only while it is still this claim's: a lock taken over since is left alone. */
async function releaseIfOurs(file: string, holder: Holder): Promise<void> {
  const current = await readHolder(file);
  if (current?.pid === holder.pid && current.host === holder.host && current.claim === holder.claim) {
    await rm(file, { force: true });
  }
}

/** Whether the holder may still be running. Only a pid on this host can be checked. */
function isAlive(holder: Holder): boolean {
  if (holder.host !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether `<file>` is a lock that a live agent may hold (a missing lock, or a crashed holder's, is not). */
export async function isLockHeld(file: string): Promise<boolean> {
  try {
    await access(file);
  } catch {
    // No lock file (or none we can see): nobody holds the session.
    return false;
  }
  const holder = await readHolder(file);
  return holder === undefined || isAlive(holder);
}
