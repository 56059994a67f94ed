import { randomUUID } from 'node:crypto';
import { lstat, mkdir, readdir, rename, rm, rmdir, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { readRegularText } from '../core/read-limited.ts';
import { ConfigError } from '../errors/config-error.ts';
import { errorCode } from './path-errors.ts';
import type { SessionLock } from './types.ts';

// How the lock works, and why exactly one process can hold it, whatever the interleaving.
//
// The lock is a folder at `<path>` holding exactly one claim file, `<uuid>.holder`, whose JSON names the
// holder (pid, host, and a random id of its process). The claim's name is unique to one acquisition.
// - Acquire: build the folder with the claim inside under a unique temporary name, then rename it onto
//   `<path>`. rename(2) replaces a missing path or an EMPTY folder and fails on a folder with anything in
//   it, atomically. A process holds the lock exactly when its rename succeeded, and until it releases.
// - Stale takeover: a claim whose process is gone (same host, and its pid is not running or is this
//   process's pid with another process id) is unlinked BY ITS OWN NAME, which leaves the folder empty,
//   i.e. free; then the takeover is an ordinary acquire.
// - Release: the holder unlinks its own claim by name, then removes the folder if it is still empty.
// Why at most one holder: `<path>` only ever gains a claim through a rename of a folder with one claim,
// which succeeds only onto a missing or empty folder, so `<path>` never holds two claims. A claim leaves
// only by an unlink of its exact name: by its holder, or by a taker-over who saw its process gone — and a
// process that is gone holds nothing. So two processes that both saw the same dead claim both unlink it
// (one gets ENOENT) and both rename: one rename wins, the other fails on the winner's claim and is refused
// because the winner is alive. A takeover can never unlink a fresh acquire's claim (another name), and a
// release can never unlink anyone else's. rmdir only removes an empty folder, and an empty folder is free.
// Every failed step is followed by a fresh look at what is there, never by acting on an old look.
// The interleavings that matter:
// - Takeover vs takeover: both unlink the dead claim (one gets ENOENT), both rename; one rename wins.
// - Takeover vs fresh acquire: before the dead claim is unlinked, the fresh rename fails and that process
//   looks, sees the dead claim and becomes a taker-over too; after it, the folder is empty and the two
//   renames race as above. Either way the loser sees a live holder and is refused.
// - Release vs takeover: a releasing holder is alive, so nobody takes its claim; once the claim is gone
//   the folder is free, and the releaser's rmdir removes it or fails (ENOTEMPTY) on a new holder's folder.
// - A slow taker-over that looked long ago: its unlink names the old dead claim, which is gone (ENOENT),
//   and its rename fails on whatever live claim is there now.
// - A crash while staging leaves only a temporary folder (no lock); after the rename, a stale lock that
//   is taken over later; between a release's unlink and rmdir, an empty folder, which is free.
// - A lock FILE (JSON) from an earlier agentchart whose process is gone is removed with unlink, which
//   never removes a folder, so it cannot remove a lock that this build has taken since.
//
// Limits: a process's liveness is checked only on this host; a holder on another host is never taken
// over. Processes sharing the folder under one host name must share one pid namespace.

/** Who holds a lock. `process` tells a process from an earlier one that had the same pid. */
type Holder = { pid: number; host: string; process?: string };

/** What is at the lock path, seen once. */
type LockState =
  | { kind: 'free' }
  | { kind: 'held'; holder: Holder }
  | { kind: 'stale'; remove: () => Promise<void> }
  | { kind: 'unknown' }
  | { kind: 'changed' };

// This process among processes that had the same pid before it (pids are reused, often in containers).
// Claims use crypto randomness, not the host's id generator: they are never logged, and must differ
// between processes even when every process is given the same deterministic ids.
// Kept on the global object, so two copies of agentchart loaded in one process (say `dist` and `src`)
// agree on who this process is and never take each other's locks for a dead process's.
const processKey = Symbol.for('agentchart.lock.process');
const processHolder = globalThis as { [processKey]?: string };
processHolder[processKey] ??= randomUUID();
const thisProcess = processHolder[processKey];
const claimSuffix = '.holder';
// Each attempt either takes the lock, is refused, or saw a lock that changed meanwhile (a holder came or
// went); under heavy contention a few rounds settle it.
const maxAttempts = 8;
// A claim is one short JSON line; anything longer is not a claim this build wrote.
const maxClaimBytes = 64 * 1024;

/**
 * Takes `<path>` as an exclusive lock for this process (see the comment above for why exactly one process
 * can win). A lock left by a crashed process on this host (its pid is gone) is taken over; one held by a
 * live process, by another host, or that cannot be read as a lock, is refused with `ConfigError`.
 */
export async function acquireFileLock(path: string, what: string): Promise<SessionLock> {
  const claim = `${randomUUID()}${claimSuffix}`;
  const staging = `${path}.${claim}.tmp`;
  await mkdir(staging);
  try {
    const holder: Holder = { pid: process.pid, host: hostname(), process: thisProcess };
    await writeFile(join(staging, claim), `${JSON.stringify(holder)}\n`);
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      if (await moveInto(staging, path)) return claimed(path, claim);
      const state = await inspectLock(path);
      if (state.kind === 'held' || state.kind === 'unknown') throw refusal(what, path, state);
      if (state.kind === 'stale') await state.remove();
      if (state.kind !== 'changed') await removeEmptyFolder(path);
    }
    throw new ConfigError(
      `${what} is contended: its lock ${path} changed hands ${maxAttempts} times; try again`,
    );
  } finally {
    // Gone after a successful rename; removed here after a refusal.
    await rm(staging, { recursive: true, force: true });
  }
}

/** Renames the staged lock folder onto `<path>`; false when something is there already. */
async function moveInto(staging: string, path: string): Promise<boolean> {
  try {
    await rename(staging, path);
    return true;
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR') return false;
    // Windows refuses to rename onto any existing folder with EPERM; elsewhere EPERM is a real refusal.
    if (code === 'EPERM' && (await isThere(path))) return false;
    throw error;
  }
}

async function isThere(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    // Not there, or not visible to this process: either way nothing to rename onto.
    return false;
  }
}

async function inspectLock(path: string): Promise<LockState> {
  let entries: string[];
  try {
    entries = await readdir(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return { kind: 'free' };
    if (errorCode(error) === 'ENOTDIR') return inspectClaim(path);
    throw error;
  }
  const [claim, ...others] = entries;
  if (claim === undefined) return { kind: 'free' };
  if (others.length > 0 || !claim.endsWith(claimSuffix)) return { kind: 'unknown' };
  return inspectClaim(join(path, claim));
}

/**
 * What one claim file says: held, stale (removable by its own name only), or changed/unknown. A lock FILE
 * written by an earlier agentchart (a plain JSON file) is read the same way; this build never writes one.
 */
async function inspectClaim(file: string): Promise<LockState> {
  const holder = await readHolder(file);
  if (holder === 'gone') return { kind: 'changed' };
  if (holder === undefined) return { kind: 'unknown' };
  if (isAlive(holder)) return { kind: 'held', holder };
  return {
    kind: 'stale',
    remove: async () => {
      await unlinkIfThere(file);
    },
  };
}

async function readHolder(file: string): Promise<Holder | 'gone' | undefined> {
  let text: string;
  try {
    // Never a blocking read: a FIFO or device there is not a claim, and unknown like any unreadable one.
    const read = await readRegularText(file, maxClaimBytes);
    if (!('text' in read)) return undefined;
    text = read.text;
  } catch (error) {
    // Gone meanwhile: look again. Not readable: unknown, which is never taken over.
    return errorCode(error) === 'ENOENT' ? 'gone' : undefined;
  }
  try {
    const parsed = JSON.parse(text) as Partial<Holder>;
    const { pid, host, process: id } = parsed;
    if (!Number.isInteger(pid) || (pid as number) <= 0 || typeof host !== 'string') return undefined;
    return { pid: pid as number, host, ...(typeof id === 'string' ? { process: id } : {}) };
  } catch {
    // Not JSON: not a holder this build can check, so it is never taken over.
    return undefined;
  }
}

/** Whether the holder may still be running. Only a pid on this host can be checked. */
function isAlive(holder: Holder): boolean {
  if (holder.host !== hostname()) return true;
  if (holder.pid === process.pid) return holder.process === undefined || holder.process === thisProcess;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return errorCode(error) === 'EPERM';
  }
}

function claimed(path: string, claim: string): SessionLock {
  let released: Promise<void> | undefined;
  return { release: () => (released ??= release(path, claim)) };
}

async function release(path: string, claim: string): Promise<void> {
  // Only this acquisition's claim, by its name; then the folder, which rmdir removes only when empty.
  if (await unlinkIfThere(join(path, claim))) await removeEmptyFolder(path);
}

/** Unlinks a file; false when it was not there (or is now a folder, which unlink never removes). */
async function unlinkIfThere(file: string): Promise<boolean> {
  try {
    await unlink(file);
    return true;
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return false;
    throw error;
  }
}

async function removeEmptyFolder(path: string): Promise<void> {
  try {
    await rmdir(path);
  } catch (error) {
    // Not empty (someone holds it now), gone, or a file: all mean there is nothing of ours to remove.
    const code = errorCode(error);
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOENT' || code === 'ENOTDIR') return;
    throw error;
  }
}

function refusal(what: string, path: string, state: { kind: 'held'; holder: Holder } | { kind: 'unknown' }) {
  if (state.kind === 'held') {
    const { pid, host } = state.holder;
    return new ConfigError(
      `${what} is held by a live agent (pid ${pid} on ${host}); dispose that agent first, ` +
        `or remove ${path} if its process is gone`,
    );
  }
  return new ConfigError(
    `${what} is held by an agent this process cannot identify (${path} is not a lock it can read); ` +
      `dispose that agent first, or remove ${path} if no agent holds it`,
  );
}
