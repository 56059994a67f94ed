/** Somewhere the CLI writes text: `process.stdout`, `process.stderr`, or a test's capture. */
export type TextOut = {
  write(chunk: string): unknown;
  isTTY?: boolean;
  /** Whether the cursor is after text on its line, when a writer shared by several parts knows it. */
  readonly lineOpen?: boolean;
};

/** Where the CLI reads answers from: `process.stdin` or a test's stream. */
export type TextIn = NodeJS.ReadableStream & { isTTY?: boolean };

/**
 * The streams and environment one CLI invocation works with, so tests can run `main()` in-process.
 * Contract: `stdout` carries only the command's output (NDJSON alone under `--json`); everything meant for
 * the person at the terminal in `--json` mode goes to `stderr`.
 */
export type CliIo = {
  stdout: TextOut;
  stderr: TextOut;
  stdin: TextIn;
  env: Record<string, string | undefined>;
  /** The directory relative paths are read from (default `process.cwd()`). */
  cwd: string;
};

/** Where text for the person at the terminal goes: stderr under `--json` (stdout carries only NDJSON then). */
export function personOut(io: CliIo, json: boolean | undefined): TextOut {
  return json ? io.stderr : io.stdout;
}

/** Writes one line. */
export function line(out: TextOut, text = ''): void {
  out.write(`${text}\n`);
}

/**
 * Whether to colour output written to `out`: never with NO_COLOR set (https://no-color.org) or when the
 * stream is not a terminal, unless FORCE_COLOR asks for it.
 */
export function wantsColor(out: TextOut, env: Record<string, string | undefined>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  return out.isTTY === true;
}

const styles = { dim: 2, bold: 1, red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36 } as const;

/** A function that colours text with an ANSI style, or leaves it plain when `color` is false. */
export function painter(color: boolean): (style: keyof typeof styles, text: string) => string {
  return (style, text) => (color ? `\u001b[${styles[style]}m${text}\u001b[0m` : text);
}
