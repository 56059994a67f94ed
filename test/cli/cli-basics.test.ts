import { spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatLogLine } from '../../src/session/schema.ts';
import { sampleLog } from '../support/store-contract.ts';
import { useTempFolders } from '../support/temp-folders.ts';
import { runCli } from './cli-harness.ts';

const noKeys = { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '' };
const lines = (text: string) => text.split('\n').filter((entry) => entry !== '');

describe('agentchart command line', () => {
  const tempFolder = useTempFolders('agentchart-cli');

  it('--help lists the commands and how a model is chosen', async () => {
    const { code, stdout, stderr } = await runCli(['--help']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(lines(stdout)[0]).toBe('Usage: agentchart [options] [command]');
    const commands = lines(stdout)
      .map((entry) => /^ {2}(\w+) /.exec(entry)?.[1])
      .filter((name) => name !== undefined);
    expect(commands).toEqual([
      'chat',
      'run',
      'resume',
      'compact',
      'job',
      'worker',
      'migrate',
      'replay',
      'demo',
      'inspect',
      'mcp',
      'config',
      'agents',
      'worktrees',
      'diagrams',
      'help',
    ]);
    expect(stdout).toContain('No key? `agentchart demo` runs a scripted model through the real runtime.');
  });

  it('run --help shows the options and the permission modes', async () => {
    const { code, stdout } = await runCli(['run', '--help']);
    expect(code).toBe(0);
    const options = lines(stdout)
      .map((entry) => /^ {2}(-\w, )?(--[\w-]+)/.exec(entry)?.[2])
      .filter((name) => name !== undefined);
    expect(options).toEqual([
      '--cwd',
      '--provider',
      '--model',
      '--mode',
      '--yes',
      '--context-window',
      '--allow',
      '--deny',
      '--session-dir',
      '--background-agents',
      '--max-steps',
      '--workspace-mcp',
      '--workspace-hooks',
      '--workspace-permissions',
      '--states',
      '--json',
      '--session',
      '--help',
    ]);
    expect(stdout.replaceAll(/\s+/g, ' ')).toContain('"plan", "default", "accept-edits", "bypass"');
  });

  it('a bad invocation is one line with the usage code and what to read, and exit code 2', async () => {
    const cases: Array<[string[], string]> = [
      [
        ['run', '--bogus', 'task'],
        "agentchart: unknown option '--bogus'; see `agentchart run --help` [usage]",
      ],
      [
        ['--bogus'],
        "agentchart: unknown option '--bogus'; see `agentchart --help` for the commands and `agentchart chat --help` for the options [usage]",
      ],
      [['frobnicate'], "agentchart: unknown command 'frobnicate'; see `agentchart --help` [usage]"],
      [['run'], "agentchart: missing required argument 'task'; see `agentchart run --help` [usage]"],
      [
        ['run', '--jsn', 'task'],
        "agentchart: unknown option '--jsn' (Did you mean --json?); see `agentchart run --help` [usage]",
      ],
      [
        ['run', '--mode', 'wild', 'task'],
        "agentchart: option '--mode <mode>' argument 'wild' is invalid. Allowed choices are plan, default, accept-edits, bypass; see `agentchart run --help` [usage]",
      ],
      [
        ['run', 'task', '--max-steps', '0'],
        "agentchart: option '--max-steps <n>' argument '0' is invalid. expected a whole number of at least 1; see `agentchart run --help` [usage]",
      ],
      [['replay'], "agentchart: missing required argument 'file'; see `agentchart replay --help` [usage]"],
    ];
    for (const [argv, expected] of cases) {
      expect(await runCli(argv, { env: noKeys }), argv.join(' ')).toEqual({
        code: 2,
        stdout: '',
        stderr: `${expected}\n`,
      });
    }
  });

  it('job with a missing file says "no such file" before it looks for a model', async () => {
    const dir = await tempFolder('files');
    expect(await runCli(['job', 'nope.json'], { env: noKeys, cwd: dir })).toEqual({
      code: 2,
      stdout: '',
      stderr: `agentchart: no such file: ${join(dir, 'nope.json')}; give the path of a job file (see agentchart job --help) [usage]\n`,
    });
  });

  it('run with no key and no provider flag says how to configure one in one line, and exits 2', async () => {
    const { code, stdout, stderr } = await runCli(['run', 'fix the tests'], { env: noKeys });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(lines(stderr)).toHaveLength(1);
    expect(stderr).toMatch(
      /^agentchart: no model is configured: set ANTHROPIC_API_KEY .*`agentchart demo` runs without any key \[config\]\n$/,
    );
  });

  it('a missing session file is one line naming the error code, and exits 2 (a configuration mistake)', async () => {
    const dir = await tempFolder('files');
    const file = join(dir, 'missing.jsonl');
    expect(await runCli(['replay', file])).toEqual({
      code: 2,
      stdout: '',
      stderr: `agentchart: session log ${file} does not exist [config]\n`,
    });
    await writeFile(join(dir, 'notes.txt'), 'hello');
    const wrongName = await runCli(['replay', join(dir, 'notes.txt')]);
    expect(wrongName.code).toBe(2);
    expect(lines(wrongName.stderr)).toHaveLength(1);
    expect(wrongName.stderr).toMatch(/^agentchart: ".*notes\.txt" is not a session log .* \[config\]\n$/);
  });

  it('replay only reads: a torn last line is skipped with a warning and the file is left as it is', async () => {
    const dir = await tempFolder('files');
    const file = join(dir, 'torn.jsonl');
    const text = `${sampleLog().map(formatLogLine).join('')}{"v":1,"seq":7,"ts":1`;
    await writeFile(file, text);
    const replay = await runCli(['replay', file]);
    expect(replay.code).toBe(0);
    expect(replay.stderr).toMatch(/line 8 was torn .*\(the file was left as it is\)/);
    expect(replay.stdout).toContain('End of replay: 1 turn(s), 1 step(s), 0 tool call(s).');
    expect(await readFile(file, 'utf8')).toBe(text);
  });

  it('diagrams writes the Mermaid files and --check tells stale from up to date', async () => {
    const dir = await tempFolder('diagrams');
    const out = join(dir, 'drawn');
    const stale = await runCli(['diagrams', '--check', '--out', out]);
    expect(stale.code).toBe(1);
    expect(lines(stale.stderr)[0]).toMatch(/^Stale diagrams: .*agent\.mmd/);
    const written = await runCli(['diagrams', '--out', out]);
    expect(written.code).toBe(0);
    expect((await readdir(out)).sort()).toEqual([
      'README.md',
      'agent.mmd',
      'step.mmd',
      'supervision.mmd',
      'tool-batch.mmd',
      'turn.mmd',
    ]);
    expect(await runCli(['diagrams', '--check', '--out', out])).toEqual({
      code: 0,
      stdout: 'Diagrams are up to date.\n',
      stderr: '',
    });
  });

  it('bin/agentchart.js runs as a real process', async () => {
    const child = spawn(process.execPath, ['bin/agentchart.js', '--help'], {
      cwd: join(import.meta.dirname, '../..'),
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(lines(stdout)[0]).toBe('Usage: agentchart [options] [command]');
  }, 60_000);

  it('stops quietly when its reader goes away (agentchart --help | head -1)', async () => {
    // The reader has gone before the help is written: the write fails with EPIPE, which must not end in a
    // stack trace and a crash.
    const child = spawn(process.execPath, ['bin/agentchart.js', '--help'], {
      cwd: join(import.meta.dirname, '../..'),
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  }, 60_000);
});
