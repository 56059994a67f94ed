// examples/coding-team.ts run as its reader would run it, inside a real git repository, against a local
// Chat Completions server playing four models: three that each edit one file (in worktrees of their own,
// so the same checkout is never touched) and a reviewer that must be asked only once all three are done,
// with their results in its prompt.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe } from 'vitest';
import type { RecordedRequest } from '../support/wire/fake-server.ts';
import type { WireReply } from '../support/wire/reply.ts';
import {
  exampleTest,
  firstUserText,
  linesOf,
  messagesOf,
  modelEnv,
  runExample,
  withBuiltPackage,
} from './example-kit.ts';

const git = promisify(execFile);

/** Each editor writes its file, then says what it did; the reviewer answers from what it was given. */
const edits: Record<string, { path: string; content: string; said: string }> = {
  'greet.js': {
    path: 'greet.js',
    content: 'export const greet = (name) => "Hello, " + name + "!";\n',
    said: 'greet now says hello.',
  },
  'sum.js': {
    path: 'sum.js',
    content: 'export const sum = (...numbers) => numbers.reduce((a, b) => a + b, 0);\n',
    said: 'sum adds all its arguments.',
  },
  'README.md': {
    path: 'README.md',
    content: '# tools\n\n## Usage\n\ngreet("Ada"); sum(1, 2, 3);\n',
    said: 'Usage added.',
  },
};

function models(reviewerAsked: string[]) {
  return (request: RecordedRequest): WireReply => {
    const asked = firstUserText(request);
    const messages = messagesOf(request);
    if (asked.startsWith('Review')) {
      reviewerAsked.push(asked);
      return { turn: { text: ['Merge sum first: the others use it least.'] } };
    }
    const file = Object.keys(edits).find((name) => asked.includes(name))!;
    const edit = edits[file]!;
    if (!messages.some((message) => message.role === 'tool')) {
      const input = JSON.stringify({ path: edit.path, content: edit.content });
      return { turn: { toolCalls: [{ id: `w-${file}`, name: 'write_file', argumentPieces: [input] }] } };
    }
    return { turn: { text: [edit.said] } };
  };
}

async function repository(folder: string): Promise<void> {
  const run = (...args: string[]) => git('git', args, { cwd: folder });
  await run('init', '-q', '-b', 'main');
  await run('config', 'user.name', 'Tester');
  await run('config', 'user.email', 'tester@example.com');
  await writeFile(join(folder, 'greet.js'), 'export const greet = (name) => name;\n');
  await writeFile(join(folder, 'sum.js'), 'export const sum = (a) => a;\n');
  await writeFile(join(folder, 'README.md'), '# tools\n');
  await run('add', '.');
  await run('commit', '-q', '-m', 'start');
}

withBuiltPackage();

describe('examples/coding-team.ts', { timeout: 120_000 }, () => {
  exampleTest(
    'three isolated tasks on one repository, each on its own branch; a reviewer after all three',
    async ({ expect, workspace, wire }) => {
      await repository(workspace);
      const reviewerAsked: string[] = [];
      const server = await wire(models(reviewerAsked));
      const run = await runExample('coding-team.ts', { cwd: workspace, env: modelEnv(server) });
      expect(run).toMatchObject({ code: 0, stderr: '' });
      const lines = linesOf(run.stdout);
      // The editors end in an order of their own making; the reviewer is last, with nobody waiting.
      const editors = lines.slice(0, 3).map((line) => /^done: (\w+) \((\d) waiting\)$/.exec(line));
      expect(editors.map((match) => match?.[1]).sort()).toEqual(['greet', 'sum', 'usage']);
      // The reviewer waits until the last of them is done.
      expect(editors.map((match) => match?.[2])).toEqual(['1', '1', '0']);
      expect(lines[3]).toBe('done: review (0 waiting)');
      const base = (await git('git', ['rev-parse', '--short=7', 'main'], { cwd: workspace })).stdout.trim();
      expect(lines.slice(4)).toEqual([
        'greet completed on agentchart/greet: greet.js',
        `  review: git diff ${base}..agentchart/greet`,
        'sum completed on agentchart/sum: sum.js',
        `  review: git diff ${base}..agentchart/sum`,
        'usage completed on agentchart/usage: README.md',
        `  review: git diff ${base}..agentchart/usage`,
        'review completed: Merge sum first: the others use it least.',
      ]);
      // The checkout was never touched; each branch holds its one change.
      expect(await readFile(join(workspace, 'greet.js'), 'utf8')).toBe(
        'export const greet = (name) => name;\n',
      );
      for (const [branch, file] of [
        ['greet', 'greet.js'],
        ['sum', 'sum.js'],
        ['usage', 'README.md'],
      ] as const) {
        const changed = await git('git', ['diff', '--name-only', `main..agentchart/${branch}`], {
          cwd: workspace,
        });
        expect(changed.stdout.trim()).toBe(file);
        const shown = await git('git', ['show', `agentchart/${branch}:${file}`], { cwd: workspace });
        expect(shown.stdout).toBe(edits[file]!.content);
      }
      // The reviewer was asked once, after all three, with each result in its prompt.
      expect(reviewerAsked).toHaveLength(1);
      for (const [id, file] of [
        ['greet', 'greet.js'],
        ['sum', 'sum.js'],
        ['usage', 'README.md'],
      ] as const)
        expect(reviewerAsked[0]).toContain(
          `<dependency id="${id}" reason="completed">\n${edits[file]!.said}\n</dependency>`,
        );
    },
  );
});
