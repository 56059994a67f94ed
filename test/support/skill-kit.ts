// The real webapp-testing skill of anthropics/skills (test/fixtures/claude-code/anthropics__skills, sources
// listed there) as the skill tests install and drive it.
import { execFileSync } from 'node:child_process';
import { cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ScriptEntry } from '../../src/providers/scripted.ts';
import type { ModelRequest } from '../../src/providers/types.ts';
import type { LogEvent } from '../../src/session/types.ts';

const fixture = join(
  import.meta.dirname,
  '..',
  'fixtures',
  'claude-code',
  'anthropics__skills',
  'webapp-testing',
);

/** A copy of the real skill in `<skills>/webapp-testing`, file modes kept (with_server.py is executable). */
export async function installSkill(skills: string): Promise<string> {
  const folder = join(skills, 'webapp-testing');
  await mkdir(skills, { recursive: true });
  await cp(fixture, folder, { recursive: true, preserveTimestamps: true });
  return folder;
}

/** What the script prints for --help, run directly: the bash tool must give the model exactly this. */
export function scriptHelp(): string {
  return execFileSync('python3', [join(fixture, 'scripts', 'with_server.py'), '--help'], {
    encoding: 'utf8',
  });
}

/** The folder the last skill result named, as a model reads it. */
export function baseFolder(request: ModelRequest): string {
  const result = request.messages.findLast((message) => message.role === 'tool');
  const content = result?.role === 'tool' ? result.content : '';
  const folder = /^Base directory for this skill: (.+)$/m.exec(content)?.[1];
  if (folder === undefined) throw new Error(`no base directory in ${JSON.stringify(content.slice(0, 200))}`);
  return folder;
}

/** Each tool result of a log as [callId, outcome, content]. */
export function results(log: readonly LogEvent[]): [string, string, string][] {
  return log
    .filter((event) => event.type === 'tool.result')
    .map((event) => [String(event.data.callId), String(event.data.outcome), String(event.data.content)]);
}

/** The model loads the skill, runs its script (by path and from its folder), asks `pwd` there, reads SKILL.md. */
export const loadThenRun: ScriptEntry[] = [
  { toolCalls: [{ id: 'load', name: 'skill', input: { name: 'webapp-testing' } }] },
  (request) => {
    const base = baseFolder(request);
    return {
      toolCalls: [
        { id: 'help', name: 'bash', input: { command: `python3 ${base}/scripts/with_server.py --help` } },
        {
          id: 'from',
          name: 'bash',
          input: { command: `cd ${base} && python3 scripts/with_server.py --help` },
        },
        { id: 'where', name: 'bash', input: { command: `cd ${base} && pwd` } },
        { id: 'read', name: 'read_file', input: { path: `${base}/SKILL.md`, limit: 3 } },
      ],
    };
  },
  { text: 'The helper starts servers, then runs a command.' },
];
