import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { AnyTool, ToolContext, ToolOutput } from '../../src/tools/define-tool.ts';

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

/** What a tool that refused answers: `content` as an error. */
export const refusal = (content: string) => ({ content, isError: true });

/** What a tool that did its work answers. */
export const answer = (content: string) => ({ content, isError: false });

/** The output as one shape: text and whether it is an error. */
export function result(output: ToolOutput): { content: string; isError: boolean } {
  return typeof output === 'string'
    ? { content: output, isError: false }
    : { content: output.content, isError: output.isError === true };
}

/** The calling file's workspace (a fresh one for each test), and a tool run in it as `result` reads it. */
export type ToolWorkspace = Omit<Fixture, 'cleanup'> & {
  run(tool: AnyTool, input: unknown): Promise<{ content: string; isError: boolean }>;
};

/**
 * Registers a fresh workspace for each test of the calling file (or `describe`), with `files` written in
 * and `prepare` run on it, removed after the test.
 */
export function useToolWorkspace(
  files: Record<string, string | Buffer> = {},
  prepare?: (fixture: Fixture) => Promise<void>,
): ToolWorkspace {
  let current: Fixture | undefined;
  beforeEach(async () => {
    current = await makeWorkspace();
    await writeFiles(current.root, files);
    await prepare?.(current);
  });
  afterEach(() => current?.cleanup());
  const fixture = (): Fixture => {
    if (!current) throw new Error('the tool workspace exists only inside a test');
    return current;
  };
  return {
    get base() {
      return fixture().base;
    },
    get root() {
      return fixture().root;
    },
    get outside() {
      return fixture().outside;
    },
    get sentinel() {
      return fixture().sentinel;
    },
    run: async (tool, input) => result(await tool.run(input as never, context(fixture().root))),
  };
}
