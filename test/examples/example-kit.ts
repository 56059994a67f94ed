// Runs a program of examples/ as its reader would (`npx tsx examples/<file>`, in a folder of their own):
// a child Node process with tsx's loader, `agentchart` resolved by package name to the built dist/, and
// the model a local OpenAI-compatible wire server named in OPENAI_BASE_URL.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, test } from 'vitest';
import type { RecordedRequest } from '../support/wire/fake-server.ts';
import { type OpenAIChatServer, startOpenAIChatServer } from '../support/wire/openai-chat-server.ts';
import type { WireReply } from '../support/wire/reply.ts';

export const repoRoot = resolve(import.meta.dirname, '../..');
export const examplesDir = join(repoRoot, 'examples');
// What `npx tsx` (and `node --import tsx`) loads, found from here so an example runs from any folder.
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/**
 * A test with a fresh `workspace` folder (removed afterwards) and `wire`, which starts a local Chat
 * Completions server answering each request with `respond` (closed afterwards). Each test has its own, so
 * the tests of examples run concurrently.
 */
export const exampleTest = test.extend<{
  workspace: string;
  wire: (respond: (request: RecordedRequest) => WireReply) => Promise<OpenAIChatServer>;
}>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern.
  workspace: async ({}, use) => {
    const folder = await mkdtemp(join(tmpdir(), 'agentchart-example-'));
    await use(folder);
    await rm(folder, { recursive: true, force: true });
  },
  // biome-ignore lint/correctness/noEmptyPattern: as above.
  wire: async ({}, use) => {
    const servers: OpenAIChatServer[] = [];
    await use(async (respond) => {
      const server = await startOpenAIChatServer(respond);
      servers.push(server);
      return server;
    });
    for (const server of servers) await server.close();
  },
});

export type ExampleRun = {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
};

/** A running example: its output so far, a wait for a piece of it, and how it ended. */
export type RunningExample = {
  readonly child: ChildProcessWithoutNullStreams;
  stdout(): string;
  /** Resolves with stdout once it holds `text` (rejects if the program ends first). */
  waitFor(text: string): Promise<string>;
  done: Promise<ExampleRun>;
};

export type ExampleOptions = { cwd: string; env?: Record<string, string>; args?: string[] };

export function startExample(file: string, options: ExampleOptions): RunningExample {
  return startNode(['--import', tsxLoader, join(examplesDir, file), ...(options.args ?? [])], options);
}

const running = new Set<ChildProcessWithoutNullStreams>();

/** Kills (SIGKILL, by pid) the children a failed test left running; call it after all tests. */
export function killLeftovers(): void {
  for (const child of running) child.kill('SIGKILL');
}

/**
 * The hooks every example suite needs: `dist/` built before the first test (the examples import the
 * package), and any example left running killed after the last.
 */
export function withBuiltPackage(): void {
  beforeAll(async () => {
    const build = await runNode(['scripts/build.mjs'], { cwd: repoRoot });
    if (build.code !== 0) throw new Error(`npm run build failed:\n${build.stdout}${build.stderr}`);
  }, 300_000);
  afterAll(killLeftovers);
}

/** `node <argv>` in `options.cwd`, as `startExample` runs an example. */
export function startNode(argv: string[], options: Omit<ExampleOptions, 'args'>): RunningExample {
  const child = spawn(process.execPath, argv, {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: 'pipe',
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  const waiters: { text: string; resolve: (out: string) => void; reject: (error: Error) => void }[] = [];
  const check = () => {
    for (const waiter of waiters.filter((entry) => stdout.includes(entry.text))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(stdout);
    }
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    check();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const done = new Promise<ExampleRun>((resolveRun, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      running.delete(child);
      for (const waiter of waiters.splice(0))
        waiter.reject(
          new Error(
            `node ${argv.join(' ')} ended before printing ${JSON.stringify(waiter.text)}:\n${stdout}${stderr}`,
          ),
        );
      resolveRun({ code, signal, stdout, stderr });
    });
  });
  return {
    child,
    stdout: () => stdout,
    waitFor: (text) =>
      new Promise((resolveWait, reject) => {
        waiters.push({ text, resolve: resolveWait, reject });
        check();
      }),
    done,
  };
}

export function runExample(file: string, options: ExampleOptions): Promise<ExampleRun> {
  const running = startExample(file, options);
  running.child.stdin.end();
  return running.done;
}

export function runNode(argv: string[], options: Omit<ExampleOptions, 'args'>): Promise<ExampleRun> {
  const running = startNode(argv, options);
  running.child.stdin.end();
  return running.done;
}

/** The environment that points an example's `openai(...)` at `server`. */
export function modelEnv(server: OpenAIChatServer): Record<string, string> {
  return { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_MODEL: 'fake-model', OPENAI_API_KEY: 'test-key' };
}

type ChatMessage = { role: string; content?: unknown; tool_calls?: { function: { name: string } }[] };

/** The messages of a Chat Completions request. */
export function messagesOf(request: RecordedRequest): ChatMessage[] {
  return (request.body.messages ?? []) as ChatMessage[];
}

/** The text of the first user message of a request: what its conversation was first asked. */
export function firstUserText(request: RecordedRequest): string {
  return String(messagesOf(request).find((message) => message.role === 'user')?.content ?? '');
}

/** The text of the last message of a request (a user's prompt, or a tool's result). */
export function lastText(request: RecordedRequest): string {
  const content = messagesOf(request).at(-1)?.content;
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((part: { text?: string }) => part.text ?? '').join('') : '';
}

/** Stdout as lines, without the empty one after the last newline. */
export function linesOf(text: string): string[] {
  return text.split('\n').filter((line, index, all) => line !== '' || index < all.length - 1);
}
