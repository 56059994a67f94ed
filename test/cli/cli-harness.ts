import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { sessionsFolder } from '../../src/cli/session-folders.ts';

/** The state folder of this test file's CLI runs (XDG_STATE_HOME), so no session lands in the real home. */
export const testStateHome = mkdtempSync(join(tmpdir(), 'agentchart-state-'));
afterAll(() => rmSync(testStateHome, { recursive: true, force: true }));

/** Where the CLI run by `runCli` writes the sessions of `workspace`. */
export const testSessionsFolder = (workspace: string) =>
  sessionsFolder(workspace, { XDG_STATE_HOME: testStateHome });

/** A captured output stream. */
export type Capture = { text: string; isTTY: boolean; write(chunk: string): boolean };

export function capture(isTTY = false): Capture {
  return {
    text: '',
    isTTY,
    write(chunk: string) {
      this.text += chunk;
      return true;
    },
  };
}

/** A stdin that is (or claims to be) a terminal, fed by the test. */
export function fakeStdin(isTTY: boolean): PassThrough & { isTTY: boolean } {
  return Object.assign(new PassThrough(), { isTTY });
}

export type CliRun = { code: number; stdout: string; stderr: string };

/** Runs the CLI in-process with captured streams, an explicit environment and no terminal. */
export async function runCli(
  argv: string[],
  options: {
    env?: Record<string, string>;
    cwd?: string;
    stdin?: PassThrough & { isTTY: boolean };
    /** Typed one at a time, each when an approval question's `> ` prompt appears on stderr (not before). */
    answers?: string[];
  } = {},
): Promise<CliRun> {
  const stdout = capture();
  const stderr = capture();
  const stdin = options.stdin ?? fakeStdin(false);
  const answers = [...(options.answers ?? [])];
  if (answers.length > 0) {
    const write = stderr.write.bind(stderr);
    stderr.write = (chunk: string) => {
      const written = write(chunk);
      if ((chunk === '> ' || chunk.startsWith('Why?')) && answers.length > 0) {
        const answer = answers.shift()!;
        setImmediate(() => stdin.write(`${answer}\n`));
      }
      return written;
    };
  }
  const code = await main(argv, {
    stdout,
    stderr,
    stdin,
    env: { NO_COLOR: '1', XDG_STATE_HOME: testStateHome, ...options.env },
    cwd: options.cwd ?? process.cwd(),
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}
