// A command hook's process, run as the `bash` tool runs a command: `bash -c` as a process-group leader with
// a fresh marker in its environment, so every process it starts can be found (also one that leaves the
// group with `setsid` or a double fork). Its answer is complete when its own process has exited and its
// output has been read: a background child that keeps stdout open does not turn the answer into a
// timeout. Whatever it left running is stopped then, and the system's dispose waits for that.
import { spawn } from 'node:child_process';
import { commandEnvironment } from '../tools/command-environment.ts';
import { newMarker, type ProcessMarker, stopProcessTree } from '../tools/process-sweep.ts';
import { hookTextMaxChars } from './hook-text.ts';

export type HookProcessOptions = {
  /** Where the process runs: the workspace of the agent that consults the hook. */
  cwd: string;
  /**
   * The project the hook configuration belongs to (the system's folder): `CLAUDE_PROJECT_DIR`, through
   * which hook commands find their scripts. An isolated agent works elsewhere (`cwd`, its worktree), where
   * a script the repository does not track is missing; a guard must still be found there.
   */
  projectDir: string;
  /** Which variables of the host's environment the command sees (the `bash` tool's filter). */
  passes: (name: string) => boolean;
  /** Time between SIGTERM and SIGKILL when the hook or what it left is stopped. */
  graceMs?: number;
  log?: (message: string) => void;
  /** Where the stopping of what hooks left running is tracked, so a dispose can wait for it. */
  sweeps?: ProcessSweeps;
};

export type ProcessEnd = {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  /** The hook wrote more than `outputCap` bytes to stdout and some were not kept: only its start is here. */
  stdoutCut: boolean;
  /** The start of what the hook wrote to stderr (`stderrBytes` in all; `stderrCut` when that is more). */
  stderr: string;
  stderrBytes: number;
  stderrCut: boolean;
  /** The hook was stopped (its signal aborted) before its process exited. */
  stopped: boolean;
  spawnError?: string;
};

/**
 * The stopping of hook processes still under way, for `AgentSystem.dispose()` to wait for. Each sweep
 * ends by itself (SIGTERM, then SIGKILL after the grace, in bounded rounds), so waiting needs no limit.
 */
export class ProcessSweeps {
  private readonly running = new Set<Promise<void>>();

  add(sweep: Promise<void>): void {
    this.running.add(sweep);
    void sweep.then(() => this.running.delete(sweep));
  }

  /** Resolves when every sweep started so far has ended. */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}

// What is kept of a hook's stdout; a hook that says more is cut (and its JSON is then invalid).
const outputCap = 1_000_000;
// What is kept of its stderr: enough bytes for `hookTextMaxChars` characters of any UTF-8.
const stderrCap = 4 * hookTextMaxChars + 4;
// Once what a hook left running is stopped, its pipes close; this long for a holder the sweep cannot find.
const drainMs = 250;

/**
 * What to run: `bash -c command` (shell form), or with `args` the program `command` itself, no shell (exec
 * form), where `${CLAUDE_PROJECT_DIR}` in the program and its arguments stands for the workspace.
 */
export type HookCommand = { command: string; args?: readonly string[] };

/** Runs the hook's command with `stdin` written to it; never rejects. */
export function runHookProcess(
  command: HookCommand,
  options: HookProcessOptions,
  stdin: string,
  signal: AbortSignal,
): Promise<ProcessEnd> {
  const marker = newMarker();
  const log = options.log ?? (() => {});
  return new Promise((resolve) => {
    const child = spawnHook(command, options, marker);
    const output = collect(child);
    let stopping: Promise<void> | undefined;
    const sweep = () => {
      if (child.pid === undefined) return;
      stopping = stopProcessTree({ pid: child.pid, marker }, { graceMs: options.graceMs ?? 1000, log });
      options.sweeps?.add(stopping);
    };
    let stopped = false;
    const stop = () => {
      stopped = true;
      sweep();
    };
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    // A hook that exits without reading its stdin closes the pipe: that is not the hook's failure.
    child.stdin.on('error', () => {});
    child.stdin.end(stdin);
    let finished = false;
    let drain: NodeJS.Timeout | undefined;
    let ended: Partial<ProcessEnd> = {};
    const finish = (end: Partial<ProcessEnd>) => {
      if (finished) return;
      finished = true;
      signal.removeEventListener('abort', stop);
      clearTimeout(drain);
      const result: ProcessEnd = { exitCode: null, signal: null, ...output.read(), stopped, ...end };
      // After a stop the answer waits until nothing of the hook is left. What a hook that ended by itself
      // left running is stopped meanwhile; that sweep is tracked for dispose.
      void (stopped && stopping ? stopping : Promise.resolve()).then(() => resolve(result));
    };
    child.on('error', (error) => finish({ spawnError: error.message }));
    child.on('exit', (code, killedBy) => {
      ended = { exitCode: code, signal: killedBy };
      // The hook has answered: a later abort or timeout changes nothing, and what it left is stopped.
      signal.removeEventListener('abort', stop);
      if (!stopped) sweep();
      // The pipes close once nothing holds them; a holder the sweep could not find is not waited for.
      void stopping?.then(() => {
        if (!finished) drain = setTimeout(() => finish({ ...ended, ...output.abandon() }), drainMs);
      });
    });
    child.on('close', (code, killedBy) => finish({ exitCode: code, signal: killedBy }));
  });
}

function spawnHook(command: HookCommand, options: HookProcessOptions, marker: ProcessMarker) {
  // In the shell form bash expands `${CLAUDE_PROJECT_DIR}` from the environment itself.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code's placeholder, written as users write it.
  const placeholders = (text: string) => text.replaceAll('${CLAUDE_PROJECT_DIR}', options.projectDir);
  const [program, args] =
    command.args === undefined
      ? ['bash', ['-c', command.command]]
      : [placeholders(command.command), command.args.map(placeholders)];
  return spawn(program, args, {
    cwd: options.cwd,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      ...commandEnvironment(process.env, options.passes),
      AGENTCHART_PROJECT_DIR: options.projectDir,
      CLAUDE_PROJECT_DIR: options.projectDir,
      [marker.name]: marker.value,
    },
  });
}

/**
 * Keeps up to `outputCap` bytes of the child's stdout (its JSON answer) and the first `stderrCap` bytes of
 * its stderr, which is only ever shown cut to `hookTextMaxChars` characters, counting all of it.
 */
function collect(child: ReturnType<typeof spawnHook>) {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let outBytes = 0;
  let errBytes = 0;
  let outDropped = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (outBytes < outputCap) out.push(chunk);
    else outDropped = true;
    outBytes += chunk.length;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    if (errBytes < stderrCap) err.push(chunk);
    errBytes += chunk.length;
  });
  const read = () => {
    const kept = Buffer.concat(err);
    return {
      stdout: Buffer.concat(out).toString('utf8'),
      stdoutCut: outDropped,
      stderr: kept.subarray(0, stderrCap).toString('utf8'),
      stderrBytes: errBytes,
      stderrCut: errBytes > stderrCap,
    };
  };
  return {
    read,
    /** Stops reading pipes that something outside the hook still holds; what was read is the output. */
    abandon: () => {
      child.stdout.destroy();
      child.stderr.destroy();
      return read();
    },
  };
}
