// The CLI commands that take a session FILE (`resume`, `replay`, `replay --check`, `inspect`, `compact`), run
// as a person runs them, on files that are not a loadable session: each says what is wrong in one line and
// leaves the file byte for byte as it was. A path that is no session log at all (another file, a folder, a
// file it may not read) is the caller's mistake: exit 2 [config]. A session log whose content is damaged
// is a failure: exit 1 [log_format].
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type ChildRun,
  type ChildRunOptions,
  type RunningChild,
  startCliProcess,
  startScript,
} from '../support/child-run.ts';
import { useCliWorld } from '../support/cli-world.ts';
import type { OpenAIChatServer } from '../support/wire/openai-chat-server.ts';

let root = '';
// A model that would answer, so a resume that wrongly goes ahead is seen to succeed.
let server: OpenAIChatServer;
let env: Record<string, string>;
useCliWorld({ prefix: 'agentchart-cli-files', home: 'unset', perFile: true }, (world) => {
  ({ server, workspace: root, env } = world);
});

// Safety nets only: a command that wrongly goes ahead is seen by what it prints, not by the clock.
const overrunMs = 120_000;
let port = 47_310 + (process.pid % 200);

type Cli = (args: string[], options: ChildRunOptions) => RunningChild;
type Runs = Record<'resume' | 'replay' | 'check' | 'inspect' | 'compact', ChildRun>;

/**
 * Runs `resume FILE "go on"`, `replay FILE`, `replay FILE --check`, `inspect FILE` and `compact FILE`, side
 * by side. An inspector that wrongly starts serving would never exit: it is killed once it says it serves.
 */
async function runAll(file: string, cli: Cli = startCliProcess): Promise<Runs> {
  server.reply({ turn: { text: ['I should never have been asked.'] } });
  const options = { env, timeoutMs: overrunMs };
  const inspect = cli(['inspect', file, '--port', String(++port)], {
    ...options,
    onStdout: (text) => {
      if (text.includes('Inspecting ')) inspect.kill('SIGKILL');
    },
  });
  const [resume, replay, check, compact, inspected] = await Promise.all([
    cli(['resume', file, 'go on', '--cwd', root], options).done,
    cli(['replay', file], options).done,
    cli(['replay', file, '--check'], options).done,
    cli(['compact', file, '--cwd', root], options).done,
    inspect.done,
  ]);
  return { resume: resume!, replay: replay!, check: check!, inspect: inspected!, compact: compact! };
}

/**
 * Each command exited with `code` (not killed) with `message` as its one line on stderr; `replay --check`
 * words a few refusals its own way (`checkMessage`).
 */
function expectRefused(runs: Runs, code: 1 | 2, message: string, checkMessage = message): void {
  for (const [command, run] of Object.entries(runs)) {
    expect({ command, code: run.code, timedOut: run.timedOut, stderr: run.stderr }).toEqual({
      command,
      code,
      timedOut: false,
      stderr: `agentchart: ${command === 'check' ? checkMessage : message}\n`,
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
      1,
      `${file}: line 1: not valid JSON (Unexpected token 'o', "notes" is not valid JSON) [log_format]`,
    );
    expect(await readFile(file, 'utf8')).toBe('notes\n');
  }, 240_000);

  it('an empty session (created, then a crash before session.start) is refused, and stays empty', async () => {
    const dir = join(root, 'empty');
    await mkdir(dir);
    const file = join(dir, 'e.jsonl');
    await writeFile(file, '');
    const runs = await runAll(file);
    expectRefused(
      runs,
      1,
      `${file}: the log is empty: the session was created but the process stopped before ` +
        '"session.start" was written, so nothing of the agent (model, tools, system prompt) was recorded; ' +
        'delete the file to reuse the id [log_format]',
      `${file}: the log is empty: the session was created but the process stopped before ` +
        '"session.start" was written, so nothing of the agent (model, tools, system prompt) was recorded; ' +
        'there is nothing to replay [log_format]',
    );
    expect(await readFile(file, 'utf8')).toBe('');
    expect(await readdir(dir)).toEqual(['e.jsonl']);
  }, 240_000);

  it('a file that is no session log (/etc/passwd) and a folder are refused by name: exit 2, a config mistake', async () => {
    const folder = join(root, 'plain-folder');
    await mkdir(folder);
    for (const path of ['/etc/passwd', folder])
      expectRefused(
        await runAll(path),
        2,
        `"${path}" is not a session log (expected a <sessionId>.jsonl file) [config]`,
      );
    expect(await readdir(folder)).toEqual([]);
  }, 240_000);

  it('a directory named like a session log is refused as a directory', async () => {
    const file = join(root, 'folder.jsonl');
    await mkdir(file);
    const runs = await runAll(file);
    expectRefused(
      runs,
      2,
      `cannot read session "folder": ${file} is a directory, not a session log [config]`,
      `cannot read the recording: ${file} is a directory, not a session log [config]`,
    );
  }, 240_000);

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
      startScript('test/fixtures/boundary/unprivileged-cli.ts', { ...options, args });
    const runs = await runAll(file, asNobody);
    expectRefused(
      runs,
      2,
      `cannot read session "s": permission denied (${file}) [config]`,
      `cannot read the recording: permission denied (${file}) [config]`,
    );
    await chmod(file, 0o600);
    expect(await readFile(file, 'utf8')).toBe('anything\n');
  }, 240_000);
});
