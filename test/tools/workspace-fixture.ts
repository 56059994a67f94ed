import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolContext, ToolOutput } from '../../src/tools/define-tool.ts';

/**
 * A real temporary layout: `<base>/ws` is the workspace, `<base>/outside` holds a sentinel file that no
 * tool may read or change. Everything lives under `base`, which `cleanup` removes.
 */
export type Fixture = {
  base: string;
  root: string;
  outside: string;
  sentinel: string;
  cleanup(): Promise<void>;
};

export const sentinelText = 'SENTINEL: nothing may read or change this\n';

export async function makeWorkspace(): Promise<Fixture> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), 'agentchart-tools-')));
  const root = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  await mkdir(root);
  await mkdir(outside);
  const sentinel = path.join(outside, 'secret.txt');
  await writeFile(sentinel, sentinelText);
  return { base, root, outside, sentinel, cleanup: () => rm(base, { recursive: true, force: true }) };
}

/** Writes files (creating folders) under `root`: `{ 'src/a.ts': 'text' }`. */
export async function writeFiles(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), content);
  }
}

export async function link(target: string, at: string): Promise<void> {
  await mkdir(path.dirname(at), { recursive: true });
  await symlink(target, at);
}

/** Every file under `folder` with its content, and every folder, to compare before and after. */
export async function snapshotTree(folder: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const key = path.relative(folder, full);
    if (entry.isSymbolicLink()) out[key] = 'symlink';
    else if (entry.isDirectory()) out[key] = 'folder';
    else out[key] = await readFile(full, 'utf8');
  }
  return out;
}

export function context(
  cwd: string,
  options: {
    controller?: AbortController;
    progress?: unknown[];
    onProgress?: (progress: unknown) => void;
    logs?: string[];
    /** The runtime's saved tool outputs, by session: `{ s1: '<folder>' }`. */
    savedOutputs?: Record<string, string>;
  } = {},
): ToolContext {
  const controller = options.controller ?? new AbortController();
  return {
    signal: controller.signal,
    cwd,
    callId: 'call-1',
    agentId: 'agent-1',
    log: (message) => options.logs?.push(message),
    onProgress: (progress) => {
      options.progress?.push(progress);
      options.onProgress?.(progress);
    },
    ...(options.savedOutputs
      ? { savedOutputs: { folderOf: (sessionId: string) => options.savedOutputs?.[sessionId] } }
      : {}),
  };
}

/** The output as one shape: text and whether it is an error. */
/** What a tool that refused answers: `content` as an error. */
export const refusal = (content: string) => ({ content, isError: true });

/** What a tool that did its work answers. */
export const answer = (content: string) => ({ content, isError: false });

export function result(output: ToolOutput): { content: string; isError: boolean } {
  return typeof output === 'string'
    ? { content: output, isError: false }
    : { content: output.content, isError: output.isError === true };
}
