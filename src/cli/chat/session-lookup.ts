// `--continue` and `--resume <id>`: which recorded session of a workspace the chat opens.
import { open, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { sessionFileLocation } from '../../session/file-store.ts';
import { CliError } from '../io.ts';

/** A session to open: the folder of its store and its id. */
export type SessionChoice = { dir: string; sessionId: string };

/**
 * `--resume <id or file>`: a path (it has a `/` or ends in `.jsonl`) names the file; anything else is a
 * session id in the workspace's sessions folder. A missing session is a `CliError` (exit 2).
 */
export async function sessionByIdOrPath(
  idOrPath: string,
  sessionsDir: string,
  cwd: string,
): Promise<SessionChoice> {
  const looksLikePath = idOrPath.includes('/') || idOrPath.endsWith('.jsonl');
  const file = looksLikePath ? resolve(cwd, idOrPath) : join(sessionsDir, `${idOrPath}.jsonl`);
  const exists = await stat(file).then(
    (info) => info.isFile(),
    () => false,
  );
  if (!exists) {
    throw new CliError(
      `no session ${looksLikePath ? file : `"${idOrPath}" in ${sessionsDir}`}; list them with: ls ${sessionsDir}`,
      { exitCode: 2 },
    );
  }
  return sessionFileLocation(file);
}

/**
 * `--continue`: the session of this workspace written to last, leaving out subagents' sessions (their
 * `session.start` names a parent). `undefined` when there is none.
 */
export async function latestSession(sessionsDir: string): Promise<SessionChoice | undefined> {
  const names = await readdir(sessionsDir).catch(() => [] as string[]);
  const candidates = await Promise.all(
    names
      .filter((name) => name.endsWith('.jsonl'))
      .map(async (name) => {
        const file = join(sessionsDir, name);
        const info = await stat(file).catch(() => undefined);
        return info?.isFile() ? { file, modified: info.mtimeMs } : undefined;
      }),
  );
  const newestFirst = candidates
    .filter((entry) => entry !== undefined)
    .sort((a, b) => b.modified - a.modified);
  for (const { file } of newestFirst) {
    if (await isTopLevel(file)) return sessionFileLocation(file);
  }
  return undefined;
}

/** Whether a session's first line is a `session.start` without a parent. */
async function isTopLevel(file: string): Promise<boolean> {
  try {
    const parsed = JSON.parse(await firstLine(file)) as { type?: unknown; data?: { parent?: unknown } };
    return parsed.type === 'session.start' && parsed.data?.parent === undefined;
  } catch {
    return false;
  }
}

/** The first line of a file, read in chunks: a session.start holds the system prompt and every tool's schema. */
async function firstLine(file: string, limit = 4 * 1024 * 1024): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let position = 0;
    while (position < limit) {
      const buffer = Buffer.alloc(64 * 1024);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      const newline = buffer.subarray(0, bytesRead).indexOf(0x0a);
      chunks.push(buffer.subarray(0, newline === -1 ? bytesRead : newline));
      if (newline !== -1) break;
      position += bytesRead;
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    await handle.close();
  }
}
