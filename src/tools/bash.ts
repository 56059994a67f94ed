import { spawn } from 'node:child_process';
import { z } from 'zod';
import { defineTool, type ToolOutput } from './define-tool.ts';
import { HeadTailBuffer } from './output-cap.ts';

export type BashOptions = {
  /** Timeout when the model gives none (default 120 000 ms). */
  defaultTimeoutMs?: number;
  /** Bytes of output kept, half from the start and half from the end (default 30 000). */
  outputCapBytes?: number;
  /** Time between SIGTERM and SIGKILL to the process group (default 2000 ms). */
  killGraceMs?: number;
};

/** The longest timeout a model may ask for. */
export const maxBashTimeoutMs = 600_000;
// After the shell exits, background children may hold the pipes open; wait this long for them.
const drainMs = 250;

const input = z.object({
  command: z.string().min(1).describe('The bash command line to run in the workspace root.'),
  timeout_ms: z
    .number()
    .int()
    .positive()
    .max(maxBashTimeoutMs)
    .optional()
    .describe(`Timeout in milliseconds (default 120000, at most ${maxBashTimeoutMs}).`),
});

/** How a command ended. */
export type CommandEnd = {
  output: HeadTailBuffer;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stoppedBy: 'abort' | 'timeout' | undefined;
  leftRunning: boolean;
  spawnError: Error | undefined;
};

/**
 * `bash`: runs a command line with `bash -c` in the workspace root. The command leads its own process
 * group, so an abort or a timeout stops it and every child it started (SIGTERM, then SIGKILL after a
 * grace period). stdout and stderr are interleaved in arrival order; long output keeps its head and tail.
 */
export function bashTool(options: BashOptions = {}) {
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 120_000;
  const capBytes = options.outputCapBytes ?? 30_000;
  const graceMs = options.killGraceMs ?? 2000;
  return defineTool({
    name: 'bash',
    description:
      'Run a bash command in the workspace root and return its combined stdout and stderr with the exit code. ' +
      `Times out after timeout_ms (default ${defaultTimeoutMs}, at most ${maxBashTimeoutMs}); the command and its ` +
      'child processes are then stopped. stdin is empty, so interactive commands fail: pass flags such as -y. ' +
      'Long output keeps its beginning and end. Prefer read_file, grep and glob for reading and searching.',
    input,
    access: 'exec',
    // The batch-level timeout is only a backstop behind the command's own one.
    timeoutMs: maxBashTimeoutMs + 4 * graceMs + 10_000,
    run: async (args, ctx) => {
      if (ctx.signal.aborted)
        return { content: 'The command was not run: the call was aborted.', isError: true };
      const timeoutMs = args.timeout_ms ?? defaultTimeoutMs;
      // A tool's own timeout is real I/O time, so a real timer is right here (the injected clock is for the
      // runtime and the log). The timeout aborts through a signal; it does not race the process.
      const timeout = AbortSignal.timeout(timeoutMs);
      const end = await runCommand({
        command: args.command,
        cwd: ctx.cwd,
        signal: AbortSignal.any([ctx.signal, timeout]),
        capBytes,
        graceMs,
        onOutput: (text) => ctx.onProgress({ type: 'bash.output', text }),
        isTimeout: () => timeout.aborted && !ctx.signal.aborted,
        log: ctx.log,
      });
      return describeEnd(end, timeoutMs);
    },
  });
}

type RunRequest = {
  command: string;
  cwd: string;
  signal: AbortSignal;
  capBytes: number;
  graceMs: number;
  onOutput: (text: string) => void;
  isTimeout: () => boolean;
  log: (message: string) => void;
};

/** Runs `bash -c command` as a process-group leader; never rejects (a spawn failure is in the result). */
export function runCommand(request: RunRequest): Promise<CommandEnd> {
  const end: CommandEnd = {
    output: new HeadTailBuffer(request.capBytes),
    exitCode: null,
    signal: null,
    stoppedBy: undefined,
    leftRunning: false,
    spawnError: undefined,
  };
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', request.command], {
      cwd: request.cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PAGER: 'cat', GIT_PAGER: 'cat' },
    });
    const timers: NodeJS.Timeout[] = [];
    const onData = (chunk: Buffer) => {
      end.output.push(chunk);
      request.onOutput(chunk.toString('utf8'));
    };
    const stop = () => {
      end.stoppedBy = request.isTimeout() ? 'timeout' : 'abort';
      if (child.pid === undefined) return;
      killGroup(child.pid, 'SIGTERM', request.log);
      const pid = child.pid;
      timers.push(setTimeout(() => killGroup(pid, 'SIGKILL', request.log), request.graceMs));
    };
    const finish = () => {
      request.signal.removeEventListener('abort', stop);
      for (const timer of timers) clearTimeout(timer);
      resolve(end);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    request.signal.addEventListener('abort', stop, { once: true });
    child.on('error', (error) => {
      end.spawnError = error;
      finish();
    });
    child.on('exit', (code, signal) => {
      end.exitCode = code;
      end.signal = signal;
      // Children that outlive the shell may keep the pipes open: stop waiting for them after a while.
      const wait = end.stoppedBy === undefined ? drainMs : request.graceMs * 2;
      timers.push(
        setTimeout(() => {
          end.leftRunning = true;
          child.stdout.destroy();
          child.stderr.destroy();
          finish();
        }, wait),
      );
    });
    child.on('close', finish);
  });
}

/** Signals a whole process group; a group that is already gone is not an error. */
function killGroup(pid: number, signal: NodeJS.Signals, log: (message: string) => void): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    // Called from timers and listeners, where a throw would take the host down: report it instead.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH')
      log(`bash: ${signal} to group ${pid} failed: ${error}`);
  }
}

function describeEnd(end: CommandEnd, timeoutMs: number): ToolOutput {
  if (end.spawnError !== undefined) {
    return { content: `The command could not be started: ${end.spawnError.message}`, isError: true };
  }
  const text = end.output.text();
  const body = text === '' ? '(no output)\n' : text.endsWith('\n') ? text : `${text}\n`;
  const notes: string[] = [];
  if (end.stoppedBy === 'timeout') {
    notes.push(`[timed out after ${timeoutMs} ms; the command and its child processes were stopped]`);
  } else if (end.stoppedBy === 'abort') {
    notes.push('[aborted; the command and its child processes were stopped]');
  } else if (end.signal !== null) {
    notes.push(`[killed by signal ${end.signal}]`);
  } else {
    notes.push(`[exit code ${end.exitCode}]`);
  }
  if (end.leftRunning && end.stoppedBy === undefined) {
    notes.push('[background processes still hold the output open; what they print later is not captured]');
  }
  const failed = end.stoppedBy !== undefined || end.signal !== null || end.exitCode !== 0;
  return { content: body + notes.join('\n'), isError: failed };
}
