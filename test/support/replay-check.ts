// `agentchart replay FILE --check` as the recording tests run it: as a child process (the built CLI unless
// told otherwise), compared whole when it must pass, and on a tampered copy of the log when it must fail.
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { type ChildRunOptions, runBuiltCliProcess } from './child-run.ts';

/** What `replay --check` prints when a log of `events` events is written again byte for byte. */
export const checkPassed = (file: string, events: number) =>
  `Replay check passed: ${file} — ${events} events written again, byte for byte.\n`;

export type CheckOptions = Omit<ChildRunOptions, 'args'> & {
  /** Flags after `--check` (`--tools live --workspace DIR`, `--json`). */
  args?: string[];
  /** The CLI to run (default: the built one, which runs from any folder). */
  cli?: typeof runBuiltCliProcess;
};

/** Runs `agentchart replay FILE --check ARGS` (a minute at most, unless told). */
export function replayCheck(file: string, options: CheckOptions = {}) {
  const { args = [], cli = runBuiltCliProcess, timeoutMs = 60_000, ...rest } = options;
  return cli(['replay', file, '--check', ...args], { ...rest, timeoutMs });
}

/** The check passes clean: exactly `stdout`, nothing on stderr, exit code 0. */
export async function expectCheckPasses(file: string, stdout: string, options: CheckOptions = {}) {
  const run = await replayCheck(file, options);
  expect({ stdout: run.stdout, stderr: run.stderr, code: run.code }).toEqual({ stdout, stderr: '', code: 0 });
}

/**
 * Writes `tampered.jsonl` beside `file`: its lines with the first one `pick` chooses changed by `change`.
 * Returns the copy and the seq (the line's index) that was changed.
 */
export async function tamperedCopy(
  file: string,
  pick: (line: string, seq: number) => boolean,
  change: (line: string) => string,
): Promise<{ tampered: string; seq: number }> {
  const lines = (await readFile(file, 'utf8')).split('\n');
  const seq = lines.findIndex(pick);
  expect(seq, `a line of ${file} to tamper with`).toBeGreaterThanOrEqual(0);
  lines[seq] = change(lines[seq]!);
  const tampered = join(dirname(file), 'tampered.jsonl');
  await writeFile(tampered, lines.join('\n'));
  return { tampered, seq };
}
