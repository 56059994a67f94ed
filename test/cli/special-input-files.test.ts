// The CLI, run as a person runs it, meeting files it reads that are not files: a SKILL.md, a session FILE, an
// MCP config, a job file, a settings file or a diagram that is a named pipe (FIFO), a link to /dev/zero, or
// far too large. Before, a FIFO wedged the command for ever (each child here is killed by pid if it does
// not end within HANG_MS, a deadline only a wedged command reaches even on a loaded 2-core machine) and
// /dev/zero ended in a bare RangeError; now each answers at once: skipped, or refused in one
// line with exit code 2 (a configuration mistake).
import { execFileSync } from 'node:child_process';
import { mkdir, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLog } from '../../src/session/log-text.ts';
import { type ChildRun, runCliProcess } from '../support/child-run.ts';
import { sessionLogOf, useCliWorld } from '../support/cli-world.ts';
import type { OpenAIChatServer } from '../support/wire/openai-chat-server.ts';

let root = '';
let server: OpenAIChatServer;
let env: Record<string, string>;
useCliWorld(
  { prefix: 'agentchart-cli-special', perFile: true, realWorkspace: true, state: 'in-home' },
  (world) => {
    ({ server, workspace: root, env } = world);
  },
);

/** Long enough that only a wedged command (the defect) reaches it, even when several start at once. */
const HANG_MS = 90_000;

const fifo = (file: string) => execFileSync('mkfifo', [file]);

/** The command ended by itself (not killed) with `code`, and `stderr` as all it said there. */
function expectEnded(run: ChildRun, code: number, stderr: string): void {
  expect({ code: run.code, timedOut: run.timedOut, stderr: run.stderr }).toEqual({
    code,
    timedOut: false,
    stderr,
  });
}

describe('the CLI on files that are not regular files', () => {
  it(
    'agentchart run skips a SKILL.md that is a FIFO and finishes the task',
    async () => {
      const workspace = join(root, 'ws');
      const skills = join(workspace, '.agentchart', 'skills');
      await mkdir(join(skills, 'pipe'), { recursive: true });
      await mkdir(join(skills, 'good'));
      fifo(join(skills, 'pipe', 'SKILL.md'));
      await writeFile(
        join(skills, 'good', 'SKILL.md'),
        '---\nname: good\ndescription: A good skill.\n---\nDo it.\n',
      );
      server.reply({ turn: { text: ['Done, without the pipe.'] } });
      const run = await runCliProcess(['run', 'say done', '--cwd', workspace], { env, timeoutMs: HANG_MS });
      expectEnded(
        run,
        0,
        'agentchart: stdin is not a terminal, so nobody can approve tool calls: edits and commands will be ' +
          'denied (use --yes for accept-edits or --mode bypass to allow them).\n',
      );
      expect(run.stdout.split('\n')).toContain('Done, without the pipe.');
      const [start] = await readLog(sessionLogOf(run.stdout));
      const config = (start!.data as { config: { skills: { name: string }[]; skillsSkipped: unknown } })
        .config;
      expect({ skills: config.skills.map((skill) => skill.name), skipped: config.skillsSkipped }).toEqual({
        skills: ['good'],
        skipped: [
          { file: join(skills, 'pipe', 'SKILL.md'), problem: 'it is a named pipe (FIFO), not a file' },
        ],
      });
    },
    2 * HANG_MS,
  );

  it(
    'resume, replay and inspect refuse a session FILE that is a FIFO, /dev/zero or over 256 MiB',
    async () => {
      const dir = join(root, 'sessions');
      await mkdir(dir);
      fifo(join(dir, 'pipe.jsonl'));
      await symlink('/dev/zero', join(dir, 'zero.jsonl'));
      await writeFile(join(dir, 'huge.jsonl'), '');
      await truncate(join(dir, 'huge.jsonl'), 257 * 1024 * 1024);
      const cases = [
        ['pipe', 'is a named pipe (FIFO), not a file'],
        ['zero', 'is a character device, not a file'],
        ['huge', 'is 257 MiB, over the limit of 256 MiB'],
      ] as const;
      let port = 47_510 + (process.pid % 200);
      for (const [id, what] of cases) {
        const file = join(dir, `${id}.jsonl`);
        const runs = await Promise.all([
          runCliProcess(['resume', file, 'go on', '--cwd', root], { env, timeoutMs: HANG_MS }),
          runCliProcess(['replay', file], { env, timeoutMs: HANG_MS }),
          runCliProcess(['inspect', file, '--port', String(++port)], { env, timeoutMs: HANG_MS }),
        ]);
        for (const run of runs)
          expectEnded(run, 2, `agentchart: cannot read session "${id}": ${file} ${what} [config]\n`);
      }
    },
    4 * HANG_MS,
  );

  it(
    'an MCP config, a job file, a settings file and a diagram that are FIFOs are refused in one line',
    async () => {
      const dir = join(root, 'others');
      await mkdir(join(dir, '.agentchart'), { recursive: true });
      await mkdir(join(dir, 'diagrams'));
      for (const name of ['mcp.json', 'job.json', '.agentchart/settings.json', 'diagrams/agent.mmd'])
        fifo(join(dir, name));
      const [mcp, job, config, diagrams] = await Promise.all([
        runCliProcess(['mcp', 'list', '--config', join(dir, 'mcp.json')], { env, timeoutMs: HANG_MS }),
        runCliProcess(['job', join(dir, 'job.json')], { env, timeoutMs: HANG_MS }),
        runCliProcess(['config', '--cwd', dir], { env, timeoutMs: HANG_MS }),
        runCliProcess(['diagrams', '--check', '--out', join(dir, 'diagrams')], { env, timeoutMs: HANG_MS }),
      ]);
      const pipe = 'is a named pipe (FIFO), not a file';
      expectEnded(mcp!, 2, `agentchart: the MCP config ${dir}/mcp.json ${pipe} [usage]\n`);
      expectEnded(job!, 2, `agentchart: the job file ${dir}/job.json ${pipe} [usage]\n`);
      expectEnded(
        config!,
        2,
        `agentchart: the settings file ${dir}/.agentchart/settings.json ${pipe} [config]\n`,
      );
      expectEnded(
        diagrams!,
        2,
        `agentchart: cannot check the diagram ${dir}/diagrams/agent.mmd: it ${pipe} [config]\n`,
      );
    },
    2 * HANG_MS,
  );
});
