// Sessions the real CLI recorded (a child process against a local OpenAI-compatible server), checked again
// with `agentchart replay --check` as a child process: the check offers the tools the recording offered.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LogEvent } from '../../src/session/types.ts';
import { runCliProcess } from '../support/child-run.ts';
import { type OpenAIChatServer, startOpenAIChatServer } from '../support/wire/openai-chat-server.ts';

const writeCall = (id: string, path: string, content: string) => ({
  id,
  name: 'write_file',
  argumentPieces: [JSON.stringify({ path, content })],
});
const parseLog = (text: string) =>
  text
    .split('\n')
    .filter((entry) => entry !== '')
    .map((entry) => JSON.parse(entry) as LogEvent);

describe('replay --check on sessions the CLI recorded', () => {
  let server: OpenAIChatServer;
  let workspace: string;
  let state: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    server = await startOpenAIChatServer();
    workspace = await mkdtemp(join(tmpdir(), 'agentchart-recorded-'));
    state = await mkdtemp(join(tmpdir(), 'agentchart-recorded-state-'));
    env = {
      HOME: state,
      XDG_STATE_HOME: state,
      ANTHROPIC_API_KEY: '',
      OPENAI_API_KEY: 'test-key',
      OPENAI_BASE_URL: `${server.url}/v1`,
    };
  });
  afterEach(async () => {
    await server.close();
    await rm(workspace, { recursive: true, force: true });
    await rm(state, { recursive: true, force: true });
  });

  /** `agentchart run "leave a note" --yes`: one write, allowed by accept-edits. Returns the log file. */
  const recordNote = async () => {
    server.reply({ turn: { toolCalls: [writeCall('c1', 'note.txt', 'remember the milk\n')] } });
    server.reply({ turn: { text: ['Left a note.'] } });
    const run = await runCliProcess(['run', 'leave a note', '--yes', '--cwd', workspace], {
      env,
      timeoutMs: 60_000,
    });
    expect(run).toMatchObject({ code: 0, timedOut: false });
    const file = /^Session log: (.+\.jsonl)$/m.exec(run.stdout)?.[1];
    expect(file).toBeDefined();
    return file!;
  };

  it('passes on `run --yes` (the coding tools and task), with the workspace as it was', async () => {
    const file = await recordNote();
    const recorded = parseLog(await readFile(file, 'utf8'));
    const start = recorded[0]!.data as { config: { tools: { name: string }[] } };
    expect(start.config.tools.map((tool) => tool.name)).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'list_dir',
      'glob',
      'grep',
      'bash',
      'task',
    ]);
    // Tools run again for real: the workspace goes back to how it was when the session started.
    await rm(join(workspace, 'note.txt'));
    const check = await runCliProcess(['replay', file, '--check'], { env, timeoutMs: 60_000 });
    expect(check.stderr).toBe('');
    expect(check.stdout).toBe(
      `Replay check passed: ${file} — ${recorded.length} events written again, byte for byte.\n`,
    );
    expect(check.code).toBe(0);
    expect(await readFile(join(workspace, 'note.txt'), 'utf8')).toBe('remember the milk\n');
  }, 120_000);
});
