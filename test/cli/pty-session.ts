import { type ChildProcess, spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, expect } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const tsxLoader = fileURLToPath(new URL('../../node_modules/tsx/dist/esm/index.mjs', import.meta.url));

/** Colour, cursor and erase sequences removed, CRs dropped: what a person reads on the screen, line by line. */
export function plainScreen(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the sequences start with ESC.
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replaceAll('\r', '');
}

/**
 * The agentchart CLI (from source) in a real pseudo-terminal made by `script`, so stdin is a TTY: keys
 * arrive raw (Esc, Ctrl-C) as they do for a person.
 */
export class PtySession {
  private readonly child: ChildProcess;
  private raw = '';
  readonly exited: Promise<number>;

  /** `columns`: the terminal's width (set with `stty` before the CLI starts); default what `script` gives. */
  constructor(args: string[], options: { cwd: string; env: Record<string, string>; columns?: number }) {
    const quoted = args.map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ');
    const size = options.columns === undefined ? '' : `stty cols ${options.columns} rows 50 && exec `;
    const command = `${size}${process.execPath} --import ${tsxLoader} ${repo}src/cli/main.ts ${quoted}`;
    this.child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', TERM: 'xterm', NO_COLOR: '1', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (chunk: Buffer) => {
      this.raw += chunk.toString('utf8');
    });
    this.child.stderr!.on('data', (chunk: Buffer) => {
      this.raw += chunk.toString('utf8');
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code ?? -1)));
  }

  /** Everything shown so far, as plain text. */
  get screen(): string {
    return plainScreen(this.raw);
  }

  /** Keys as typed: `\r` is Enter, `\u001b` Esc, `\u0003` Ctrl-C. */
  type(keys: string): void {
    this.child.stdin!.write(keys);
  }

  /** Resolves once the screen, after `from` characters, matches `pattern`; rejects after `timeoutMs`. */
  async waitFor(pattern: RegExp | string, from = 0, timeoutMs = 20_000): Promise<number> {
    const started = performance.now();
    for (;;) {
      const rest = this.screen.slice(from);
      const index = typeof pattern === 'string' ? rest.indexOf(pattern) : rest.search(pattern);
      if (index >= 0) return from + index;
      if (performance.now() - started > timeoutMs) {
        throw new Error(`timed out waiting for ${String(pattern)}; the screen shows:\n${this.screen}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Types `keys`, then waits as `waitFor` does: one exchange with the person at the terminal. */
  typeAndWait(keys: string, pattern: RegExp | string, from = 0): Promise<number> {
    this.type(keys);
    return this.waitFor(pattern, from);
  }

  /** Everything the CLI wrote, escape sequences included. */
  get output(): string {
    return this.raw;
  }

  /** Sends `signal` to the CLI's own process (under `script` and its shell), as a system would. */
  async signalCli(signal: NodeJS.Signals): Promise<void> {
    const pid = await descendantRunning(this.child.pid!, `${repo}src/cli/main.ts`);
    process.kill(pid, signal);
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}

/** The Node process under `root` that runs the script `marker`, read from /proc. */
async function descendantRunning(root: number, marker: string): Promise<number> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // The fields after the command name (which may hold spaces) start after its closing parenthesis.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (Number.isInteger(ppid)) parents.set(Number(entry), ppid);
  }
  const under = (pid: number): boolean => {
    for (let at = parents.get(pid); at !== undefined && at > 1; at = parents.get(at))
      if (at === root) return true;
    return false;
  };
  for (const pid of parents.keys()) {
    if (!under(pid)) continue;
    // Node itself, not a shell whose command line names it.
    const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (argv[0] === process.execPath && argv.includes(marker)) return pid;
  }
  throw new Error(`no process under ${root} runs ${marker}`);
}

/** Where a chat opens: the workspace it runs in and its environment (read when the chat is opened). */
export type ChatPlace = { workspace: string; env: Record<string, string> };

/**
 * Registers the clean-up in the calling `describe` (or file) and returns an opener of chats in `place`:
 * every chat still running after a test is killed, so a failed wait leaves no process behind.
 */
export function usePtyChats(
  place: () => ChatPlace,
): (args: string[], options?: { columns?: number }) => PtySession {
  const sessions: PtySession[] = [];
  afterEach(() => {
    for (const pty of sessions.splice(0)) pty.kill();
  });
  return (args, options = {}) => {
    const { workspace, env } = place();
    const pty = new PtySession(args, { cwd: workspace, env, ...options });
    sessions.push(pty);
    return pty;
  };
}

/**
 * Leaves a chat with /exit, from screen position `from`, and expects it to end with code 0. Returns the id
 * its "Continue it: agentchart --resume ID" line names.
 */
export async function leaveChat(pty: PtySession, from: number): Promise<string> {
  pty.type('/exit\r');
  const at = await pty.waitFor(/Continue it: agentchart --resume (\S+)/, from);
  expect(await pty.exited).toBe(0);
  return /Continue it: agentchart --resume (\S+)/.exec(pty.screen.slice(at))![1]!;
}
