// The CLI commands that take a session FILE (`resume`, `replay`, `inspect`), run as a person runs them, on
// files that are not a loadable session: each says what is wrong in one line, exits 1, and leaves the
// file byte for byte as it was.
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildRun, runCliProcess, runScript } from '../support/child-run.ts';
import { type OpenAIChatServer, startOpenAIChatServer } from '../support/wire/openai-chat-server.ts';

let root = '';
let server: OpenAIChatServer;
let env: Record<string, string>;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'agentchart-cli-files-'));
  // A model that would answer, so a resume that wrongly goes ahead is seen to succeed.
  server = await startOpenAIChatServer();
  env = { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: `${server.url}/v1` };
});
afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

// An inspector that wrongly starts serving would never exit: it is killed after this long.
const inspectTimeoutMs = 10_000;
let port = 47_310 + (process.pid % 200);

type Cli = (
  args: string[],
  options: { env: Record<string, string>; timeoutMs?: number },
) => Promise<ChildRun>;

/** Runs `resume FILE "go on"`, `replay FILE` and `inspect FILE` on `file`, side by side. */
async function runAll(file: string, cli: Cli = runCliProcess) {
  server.reply({ turn: { text: ['I should never have been asked.'] } });
  const [resume, replay, inspect] = await Promise.all([
    cli(['resume', file, 'go on', '--cwd', root], { env }),
    cli(['replay', file], { env }),
    cli(['inspect', file, '--port', String(++port)], { env, timeoutMs: inspectTimeoutMs }),
  ]);
  return { resume: resume!, replay: replay!, inspect: inspect! };
}

/** Each command exited 1 (not killed) with `message` as its one line on stderr. */
function expectRefused(runs: Record<string, ChildRun>, message: string): void {
  for (const [command, run] of Object.entries(runs)) {
    expect({ command, code: run.code, timedOut: run.timedOut, stderr: run.stderr }).toEqual({
      command,
      code: 1,
      timedOut: false,
      stderr: `agentchart: ${message}\n`,
    });
  }
}

describe('CLI commands on a FILE that is not a loadable session', () => {
  it('a file of notes is refused as corrupt and never emptied', async () => {
    const file = join(root, 'n.jsonl');
    await writeFile(file, 'notes\n');
    const runs = await runAll(file);
    expectRefused(
      runs,
      `${file}: line 1: not valid JSON (Unexpected token 'o', "notes" is not valid JSON) [log_format]`,
    );
    expect(await readFile(file, 'utf8')).toBe('notes\n');
  }, 30_000);

  it('an empty session (created, then a crash before session.start) is refused, and stays empty', async () => {
    const dir = join(root, 'empty');
    await mkdir(dir);
    const file = join(dir, 'e.jsonl');
    await writeFile(file, '');
    const runs = await runAll(file);
    expectRefused(
      runs,
      `${file}: the log is empty: the session was created but the process stopped before ` +
        '"session.start" was written, so nothing of the agent (model, tools, system prompt) was recorded; ' +
        'delete the file to reuse the id [log_format]',
    );
    expect(await readFile(file, 'utf8')).toBe('');
    expect(await readdir(dir)).toEqual(['e.jsonl']);
  }, 30_000);

  it('a directory named like a session log is refused as a directory', async () => {
    const file = join(root, 'folder.jsonl');
    await mkdir(file);
    const runs = await runAll(file);
    expectRefused(runs, `cannot read session "folder": ${file} is a directory, not a session log [config]`);
  }, 30_000);

  it('a file that cannot be read (mode 000, run as a user that the mode applies to) is refused', async () => {
    const dir = join(root, 'locked-out');
    await mkdir(dir);
    // The unprivileged user must be able to reach the folder; only the file is closed to it.
    await chmod(root, 0o755);
    await chmod(dir, 0o777);
    const file = join(dir, 's.jsonl');
    await writeFile(file, 'anything\n');
    await chmod(file, 0o000);
    const asNobody: Cli = (args, options) =>
      runScript('test/fixtures/boundary/unprivileged-cli.ts', { ...options, args });
    const runs = await runAll(file, asNobody);
    expectRefused(runs, `cannot read session "s": permission denied (${file}) [config]`);
    await chmod(file, 0o600);
    expect(await readFile(file, 'utf8')).toBe('anything\n');
  }, 30_000);
});
