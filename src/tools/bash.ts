import { spawn } from 'node:child_process';
import { z } from 'zod/v4';
import { milliseconds, must, positiveInteger, timeoutMs } from '../core/host-schema.ts';
import { timeLimit } from '../core/time-limit.ts';
import {
  type CommandEnvironmentOptions,
  commandEnvironment,
  environmentFilter,
} from './command-environment.ts';
import { defineTool } from './define-tool.ts';
import { HeadTailBuffer } from './output-cap.ts';
import { newMarker, type ProcessMarker, stopProcessTree } from './process-sweep.ts';
import { relocateSkillPaths } from './skill-files.ts';
import { parseToolOptions } from './tool-options.ts';

export type BashOptions = {
  /** Timeout when the model gives none (default 120 000 ms). */
  defaultTimeoutMs?: number;
  /**
   * Bytes of a command's output kept in memory, half from the start and half from the end (default
   * 1 000 000). Inside an agent system the model reads at most `toolOutput.maxChars` of it; the runtime
   * saves the whole kept output to a file the model can page through with `read_file`.
   */
  outputCapBytes?: number;
  /** Time between SIGTERM and SIGKILL when a command is stopped (default 2000 ms). */
  killGraceMs?: number;
  /**
   * Which variables of the host's environment commands see. By default every variable except those named
   * like credentials (`defaultWithheldVariables`: `*API_KEY`, `*TOKEN`, `*SECRET*`, …);
   * `{ allow: ['OPENAI_API_KEY'] }` passes one anyway, `{ withhold: ['DATABASE_URL'] }` keeps one more back.
   */
  env?: CommandEnvironmentOptions;
};

/** The longest timeout a model may ask for. */
export const maxBashTimeoutMs = 600_000;

const patternRule = 'a variable name or a pattern with *, without "=" or NUL';
const variablePattern = z
  .string(must(patternRule))
  .min(1, must(patternRule))
  .refine((name) => !/[=\0]/.test(name), must(patternRule));
const variablePatterns = z.array(variablePattern, must('an array of variable names or patterns'));

const optionsSchema = z.strictObject(
  {
    defaultTimeoutMs: timeoutMs
      .max(maxBashTimeoutMs, must(`a whole number of milliseconds from 1 to ${maxBashTimeoutMs}`))
      .optional(),
    outputCapBytes: positiveInteger.optional(),
    killGraceMs: milliseconds.optional(),
    env: z
      .strictObject(
        { withhold: variablePatterns.optional(), allow: variablePatterns.optional() },
        must('an object'),
      )
      .optional(),
  },
  must('an object'),
);
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
 * `bash`: runs a command line with `bash -c` in the workspace root. An abort or a timeout stops the
 * command and every process it started (SIGTERM, then SIGKILL after a grace period): its process group and,
 * on Linux, every process carrying the command's marker in its environment, so `setsid` and double forks
 * do not escape. stdout and stderr are interleaved in arrival order; long output keeps its head and tail.
 * Commands do not see credentials from the host's environment unless `env.allow` names them.
 *
 * @throws ConfigError when an option is invalid.
 */
export function bashTool(options: BashOptions = {}) {
  const parsed = parseToolOptions(optionsSchema, options, 'bash');
  const defaultTimeoutMs = parsed.defaultTimeoutMs ?? 120_000;
  const capBytes = parsed.outputCapBytes ?? 1_000_000;
  const graceMs = parsed.killGraceMs ?? 2000;
  const passes = environmentFilter(parsed.env);
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
      const timeout = timeLimit(ctx.signal, timeoutMs);
      const end = await runCommand({
        // A replay somewhere else runs a skill's scripts from where the skill is here (identity otherwise).
        command: relocateSkillPaths(ctx.skillFolders, args.command, 'toLocal'),
        cwd: ctx.cwd,
        // Read at each call: the host may change its environment between calls.
        env: commandEnvironment(process.env, passes),
        signal: timeout.signal,
        capBytes,
        graceMs,
        onOutput: (text) =>
          ctx.onProgress({
            type: 'bash.output',
            text: relocateSkillPaths(ctx.skillFolders, text, 'toShown'),
          }),
        isTimeout: () => timeout.timedOut && !ctx.signal.aborted,
        log: ctx.log,
      }).finally(() => timeout.release());
      const described = describeEnd(end, timeoutMs);
      return { ...described, content: relocateSkillPaths(ctx.skillFolders, described.content, 'toShown') };
    },
  });
}

type RunRequest = {
  command: string;
  cwd: string;
  env: Record<string, string>;
  signal: AbortSignal;
  capBytes: number;
  graceMs: number;
  onOutput: (text: string) => void;
  isTimeout: () => boolean;
  log: (message: string) => void;
};

/**
 * Runs `bash -c command` as a process-group leader with a fresh marker in its environment; never rejects (a
 * spawn failure is in the result). After an abort it resolves once every process of the command is gone.
 */
export function runCommand(request: RunRequest): Promise<CommandEnd> {
  const end: CommandEnd = {
    output: new HeadTailBuffer(request.capBytes),
    exitCode: null,
    signal: null,
    stoppedBy: undefined,
    leftRunning: false,
    spawnError: undefined,
  };
  const marker = newMarker();
  return new Promise((resolve) => {
    const child = spawnShell(request, marker);
    let drain: NodeJS.Timeout | undefined;
    let stopping: Promise<void> | undefined;
    let finished = false;
    const onData = (chunk: Buffer) => {
      end.output.push(chunk);
      request.onOutput(chunk.toString('utf8'));
    };
    const stop = () => {
      end.stoppedBy = request.isTimeout() ? 'timeout' : 'abort';
      if (child.pid === undefined) return;
      const options = { graceMs: request.graceMs, log: request.log };
      stopping = stopProcessTree({ pid: child.pid, marker }, options);
    };
    const finish = () => {
      if (finished) return;
      finished = true;
      request.signal.removeEventListener('abort', stop);
      clearTimeout(drain);
      // After an abort, the result waits until the sweep is over: nothing of the command is left then.
      void (stopping ?? Promise.resolve()).then(() => resolve(end));
    };
    // Stop waiting for output: the pipes may be held by processes that outlive the shell.
    const giveUpOnPipes = () => {
      child.stdout.destroy();
      child.stderr.destroy();
      finish();
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
      // After a sweep nothing of the command holds the pipes; otherwise wait a little for the output.
      if (stopping !== undefined) void stopping.then(giveUpOnPipes);
      else
        drain = setTimeout(() => {
          end.leftRunning = true;
          giveUpOnPipes();
        }, drainMs);
    });
    child.on('close', finish);
  });
}

function spawnShell(request: RunRequest, marker: ProcessMarker) {
  return spawn('bash', ['-c', request.command], {
    cwd: request.cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...request.env, PAGER: 'cat', GIT_PAGER: 'cat', [marker.name]: marker.value },
  });
}

function describeEnd(end: CommandEnd, timeoutMs: number): { content: string; isError: boolean } {
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
