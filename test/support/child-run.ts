// Runs a TypeScript script in a child Node process, for tests of inputs that could crash or wedge the
// process: the test survives whatever the child does, and a child that overruns is killed by pid.
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export type ChildRun = {
  /** The exit code, or null when the child was ended by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** True when the child overran `timeoutMs` and was killed. */
  timedOut: boolean;
};

export type ChildRunOptions = {
  args?: string[];
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Killed with SIGKILL after this long (default 15 s). */
  timeoutMs?: number;
  /** Written to the child's stdin, which is then closed. */
  stdin?: string;
  /** Flags for node itself, before the script (e.g. `--allow-natives-syntax`). */
  nodeArgs?: string[];
  /** Called with everything the child wrote to stdout so far, each time more arrives. */
  onStdout?: (stdoutSoFar: string) => void;
};

/**
 * Runs `script` (a path, relative to the repository root or absolute) with `node --import tsx`.
 *
 * @example
 * const run = await runScript('test/fixtures/boundary/approve-false.ts', { args: [dir] });
 * expect(run).toMatchObject({ code: 0, timedOut: false });
 */
export function runScript(script: string, options: ChildRunOptions = {}): Promise<ChildRun> {
  const path = resolve(repoRoot, script);
  return runNode([...(options.nodeArgs ?? []), '--import', 'tsx', path, ...(options.args ?? [])], options);
}

/** Like `runScript`, but hands back the running child at once (to signal it at a point it reports). */
export function startScript(script: string, options: ChildRunOptions = {}): RunningChild {
  const path = resolve(repoRoot, script);
  return startNode([...(options.nodeArgs ?? []), '--import', 'tsx', path, ...(options.args ?? [])], options);
}

/**
 * Starts `script` and resolves once a line of its stdout ends with `marker` (the point a crash test kills
 * it at); rejects, with what it printed, if the child ends first.
 */
export function startScriptUntil(
  script: string,
  marker: string,
  options: Omit<ChildRunOptions, 'onStdout'>,
): Promise<RunningChild> {
  return untilPrinted(marker, (onStdout) => startScript(script, { ...options, onStdout }));
}

/** `startCliProcess`, resolved once a line of its stdout ends with `marker` (as `startScriptUntil`). */
export function startCliUntil(
  args: string[],
  marker: string,
  options: Omit<ChildRunOptions, 'args' | 'onStdout'> = {},
): Promise<RunningChild> {
  return untilPrinted(marker, (onStdout) => startCliProcess(args, { ...options, onStdout }));
}

async function untilPrinted(
  marker: string,
  start: (onStdout: (text: string) => void) => RunningChild,
): Promise<RunningChild> {
  let reached: () => void = () => {};
  const printed = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const child = start((text) => {
    if (text.includes(`${marker}\n`)) reached();
  });
  const ended = child.done.then((run) => {
    throw new Error(
      `the child ended before ${marker} (${run.code}, ${run.signal}): ${run.stdout} ${run.stderr}`,
    );
  });
  await Promise.race([printed, ended]);
  return child;
}

/** Runs the agentchart CLI from source as a person would (`agentchart <args>`). */
export function runCliProcess(
  args: string[],
  options: Omit<ChildRunOptions, 'args'> = {},
): Promise<ChildRun> {
  return runNode(['--import', 'tsx', join(repoRoot, 'src/cli/main.ts'), ...args], options);
}

/**
 * Runs the built CLI (`dist/cli/main.js`, as the published package runs it: `npm run -s build` first), from
 * any working directory: unlike `runCliProcess` it needs no loader resolved from `cwd`.
 */
export function runBuiltCliProcess(
  args: string[],
  options: Omit<ChildRunOptions, 'args'> = {},
): Promise<ChildRun> {
  return runNode([join(repoRoot, 'dist/cli/main.js'), ...args], options);
}

/** A child that is still running: its pid, a way to signal it, and its result once it ends. */
export type RunningChild = {
  pid: number;
  kill(signal?: NodeJS.Signals): void;
  done: Promise<ChildRun>;
};

/** Like `runCliProcess`, but hands back the running child at once (for servers the test talks to). */
export function startCliProcess(args: string[], options: Omit<ChildRunOptions, 'args'> = {}): RunningChild {
  return startNode(['--import', 'tsx', join(repoRoot, 'src/cli/main.ts'), ...args], options);
}

function runNode(argv: string[], options: ChildRunOptions): Promise<ChildRun> {
  return startNode(argv, options).done;
}

function startNode(argv: string[], options: ChildRunOptions): RunningChild {
  const child = spawn(process.execPath, argv, {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let timedOut = false;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    options.onStdout?.(stdout);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs ?? 15_000);
  const done = new Promise<ChildRun>((resolvePromise, reject) => {
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr, timedOut });
    });
  });
  child.stdin.end(options.stdin ?? '');
  return { pid: child.pid ?? -1, kill: (signal = 'SIGTERM') => child.kill(signal), done };
}
