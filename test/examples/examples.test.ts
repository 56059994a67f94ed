// Every program in examples/ runs here as its reader would run it, against a local OpenAI-compatible
// wire server, so none of them can rot: a change to the API they use fails this file. They import
// `agentchart` by name, which is the built dist/: `npm test` builds it first, and so does this file
// (scripts/build.mjs does nothing when dist/ is up to date with src/).
import { copyFile, cp, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe } from 'vitest';
import { unknownOutcomeContent } from '../../src/session/repair.ts';
import type { RecordedRequest } from '../support/wire/fake-server.ts';
import type { WireToolCall } from '../support/wire/reply.ts';
import {
  examplesDir,
  exampleTest,
  lastText,
  linesOf,
  messagesOf,
  modelEnv,
  repoRoot,
  runExample,
  runNode,
  startExample,
  withBuiltPackage,
} from './example-kit.ts';

/** A tool call of the wire model, its arguments sent in one piece. */
function call(id: string, name: string, input: unknown): WireToolCall {
  return { id, name, argumentPieces: [JSON.stringify(input)] };
}

/** The tool results a request carries back to the model, in order. */
function toolResults(request: RecordedRequest): string[] {
  return messagesOf(request)
    .filter((message) => message.role === 'tool')
    .map((message) => String(message.content));
}

withBuiltPackage();

describe.concurrent('examples/', { timeout: 60_000 }, () => {
  exampleTest(
    'job.ts: ten tasks, four agents at a time, with progress as each starts and ends',
    async ({ expect, workspace, wire }) => {
      const server = await wire((request) => {
        const n = /number (\d+)/.exec(lastText(request))?.[1];
        return { turn: { text: [`${n} is `, `the number ${n}.`] } };
      });
      const run = await runExample('job.ts', { cwd: workspace, env: modelEnv(server) });
      expect(run).toMatchObject({ code: 0, stderr: '' });
      const lines = linesOf(run.stdout);
      const results = Array.from({ length: 10 }, (_, n) => `${n} completed: ${n} is the number ${n}.`);
      expect(lines.slice(20)).toEqual(results);
      const progress = lines.slice(0, 20);
      // Each task starts before it finishes, the finished count rises by one, and no more than four run.
      const finished = progress.filter((line) => line.startsWith('task.finished'));
      expect(finished.map((line) => /\((\d+)\/10 done\)/.exec(line)?.[1])).toEqual(
        Array.from({ length: 10 }, (_, n) => String(n + 1)),
      );
      for (let n = 0; n < 10; n++) {
        const started = progress.findIndex((line) => line.startsWith(`task.started ${n} `));
        const ended = progress.findIndex((line) => line.startsWith(`task.finished ${n} `));
        expect(started).toBeGreaterThanOrEqual(0);
        expect(ended).toBeGreaterThan(started);
      }
      let running = 0;
      for (const line of progress) {
        running += line.startsWith('task.started') ? 1 : -1;
        expect(running).toBeLessThanOrEqual(4);
      }
      expect(server.requests).toHaveLength(10);
    },
  );

  exampleTest(
    'approvals.ts: reads run freely, each transfer asks on the terminal, a no reaches the model',
    async ({ expect, workspace, wire }) => {
      const server = await wire((request) =>
        messagesOf(request).at(-1)?.role === 'user'
          ? {
              turn: {
                toolCalls: [
                  call('c1', 'balance', {}),
                  call('c2', 'transfer', { to: 'alice', amount: 50 }),
                  call('c3', 'transfer', { to: 'bob', amount: 5000 }),
                ],
              },
            }
          : { turn: { text: [toolResults(request).join(' | ')] } },
      );
      const example = startExample('approvals.ts', { cwd: workspace, env: modelEnv(server) });
      await example.waitFor('Allow transfer {"to":"alice","amount":50}? [y/N] ');
      example.child.stdin.write('y\n');
      await example.waitFor('Allow transfer {"to":"bob","amount":5000}? [y/N] ');
      example.child.stdin.write('n\n');
      const run = await example.done;
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toBe(
        'Allow transfer {"to":"alice","amount":50}? [y/N] Allow transfer {"to":"bob","amount":5000}? [y/N] \n' +
          '1200 | Sent 50 euros to alice. | Permission denied: the account owner said no\n',
      );
      expect(server.requests).toHaveLength(2);
    },
  );

  exampleTest(
    'local-model.ts: reads, edits, runs npm test, and is refused any other command',
    async ({ expect, workspace, wire }) => {
      await writeFile(
        join(workspace, 'package.json'),
        JSON.stringify({ type: 'module', scripts: { test: 'node --test' } }),
      );
      await writeFile(join(workspace, 'sum.js'), 'export const sum = (a, b) => a - b;\n');
      const check =
        "import assert from 'node:assert';\nimport { test } from 'node:test';\nimport { sum } from './sum.js';\n";
      await writeFile(
        join(workspace, 'sum.test.js'),
        `${check}test('sum', () => assert.equal(sum(2, 3), 5));\n`,
      );
      const steps = [
        call('c1', 'read_file', { path: 'sum.js' }),
        call('c2', 'edit_file', { path: 'sum.js', old_string: 'a - b', new_string: 'a + b' }),
        call('c3', 'bash', { command: 'npm test' }),
        call('c4', 'bash', { command: 'git push' }),
      ];
      const server = await wire((request) => {
        const step = steps[messagesOf(request).filter((message) => message.role === 'assistant').length];
        return step ? { turn: { toolCalls: [step] } } : { turn: { text: ['Fixed sum.js: it subtracted.'] } };
      });
      const run = await runExample('local-model.ts', { cwd: workspace, env: modelEnv(server) });
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(linesOf(run.stdout)).toEqual([
        '> read_file {"path":"sum.js"}',
        '> edit_file {"path":"sum.js","old_string":"a - b","new_string":"a + b"}',
        '> bash {"command":"npm test"}',
        '> bash {"command":"git push"}',
        'Fixed sum.js: it subtracted.',
      ]);
      expect(await readFile(join(workspace, 'sum.js'), 'utf8')).toBe('export const sum = (a, b) => a + b;\n');
      const [read, edit, test, push] = toolResults(server.requests[4]!);
      expect(read).toContain('export const sum = (a, b) => a - b;');
      expect(edit).toMatch(/^Edited sum\.js/);
      expect(test).toMatch(/# pass 1\n# fail 0/);
      expect(push).toBe('Permission denied: only `npm test` may run here');
    },
  );

  exampleTest(
    'resume.ts: killed in the middle of a tool call, resumed from the log, the cut call unknown',
    async ({ expect, workspace, wire }) => {
      const server = await wire((request) => {
        const steps = messagesOf(request).filter((message) => message.role === 'assistant').length;
        if (steps < 2) return { turn: { toolCalls: [call(`c${steps + 1}`, 'migrate', {})] } };
        return { turn: { text: [`Checked again: ${toolResults(request).at(-1)}`] } };
      });
      const crashed = await runExample('resume.ts', { cwd: workspace, env: modelEnv(server) });
      expect(crashed).toMatchObject({ code: null, signal: 'SIGKILL', stderr: '' });
      const sessionId = /^session (\S+)\n$/.exec(crashed.stdout)?.[1];
      expect(sessionId).toBeDefined();
      const resumed = await runExample('resume.ts', {
        cwd: workspace,
        env: modelEnv(server),
        args: [sessionId!],
      });
      expect(resumed).toMatchObject({
        code: 0,
        stderr: '',
        stdout: `session ${sessionId}\nChecked again: No migrations pending.\n`,
      });
      // The resumed model read the first prompt, its own call, and the repaired result of that call.
      expect(messagesOf(server.requests[1]!).map((message) => message.role)).toEqual([
        'system',
        'user',
        'assistant',
        'tool',
        'user',
      ]);
      expect(toolResults(server.requests[1]!)).toEqual([unknownOutcomeContent]);
      const log = (await readFile(join(workspace, '.agentchart/sessions', `${sessionId}.jsonl`), 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
      expect(log.filter((event) => event.type === 'turn.end').map((event) => event.data.reason)).toEqual([
        'interrupted',
        'completed',
      ]);
    },
  );

  exampleTest(
    'mcp-server/agent.ts: starts the stdio server, whose tools the model calls by their MCP names',
    async ({ expect, workspace, wire }) => {
      const steps = [
        call('c1', 'mcp__notes__add_note', { text: 'The demo is on Friday.' }),
        call('c2', 'mcp__notes__list_notes', {}),
      ];
      const server = await wire((request) => {
        const step = steps[messagesOf(request).filter((message) => message.role === 'assistant').length];
        return step
          ? { turn: { toolCalls: [step] } }
          : { turn: { text: [`Your notes: ${toolResults(request).at(-1)}`] } };
      });
      const run = await runExample('mcp-server/agent.ts', { cwd: workspace, env: modelEnv(server) });
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(linesOf(run.stdout)).toEqual([
        'notes: connected, mcp__notes__add_note, mcp__notes__list_notes',
        'Your notes: 1. The demo is on Friday.',
      ]);
      expect(toolResults(server.requests[2]!)).toEqual(['Noted (1 notes).', '1. The demo is on Friday.']);
      const offered = (server.requests[0]!.body.tools as { function: { name: string } }[]).map(
        (tool) => tool.function.name,
      );
      expect(offered).toEqual(['mcp__notes__add_note', 'mcp__notes__list_notes']);
    },
  );

  exampleTest(
    "hook/agent.ts: the settings file's PreToolUse command blocks rm -rf, the model reads why",
    async ({ expect, workspace, wire }) => {
      await cp(join(examplesDir, 'hook/.claude'), join(workspace, '.claude'), { recursive: true });
      await mkdir(join(workspace, 'build'));
      await writeFile(join(workspace, 'build/out.js'), 'built\n');
      const steps = [
        call('c1', 'bash', { command: 'rm -rf build' }),
        call('c2', 'bash', { command: 'rm build/out.js && rmdir build' }),
      ];
      const server = await wire((request) => {
        const step = steps[messagesOf(request).filter((message) => message.role === 'assistant').length];
        return step ? { turn: { toolCalls: [step] } } : { turn: { text: ['Removed build/ file by file.'] } };
      });
      const run = await runExample('hook/agent.ts', { cwd: workspace, env: modelEnv(server) });
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(linesOf(run.stdout)).toEqual([
        'hook deny: rm -rf is not allowed here: remove files by name.',
        'Removed build/ file by file.',
      ]);
      expect(toolResults(server.requests[1]!)).toEqual([
        'Permission denied by hook node "$CLAUDE_PROJECT_DIR"/.claude/hooks/no-rm-rf.mjs: ' +
          'rm -rf is not allowed here: remove files by name.',
      ]);
      await expect(stat(join(workspace, 'build'))).rejects.toMatchObject({ code: 'ENOENT' });
    },
  );

  exampleTest(
    'first-agent.ts: a zod tool, the answer streamed, the session recorded',
    async ({ expect, workspace, wire }) => {
      const server = await wire((request) =>
        messagesOf(request).at(-1)?.role === 'user'
          ? { turn: { toolCalls: [call('c1', 'weather', { city: 'Paris' })] } }
          : { turn: { text: ['Sunny and 21 °C', ': a T-shirt ', 'will do.'] } },
      );
      // The model's name as a local server would serve it, since this run is also replay-test/'s recording.
      const env = { ...modelEnv(server), OPENAI_MODEL: 'qwen3:8b' };
      const run = await runExample('first-agent.ts', { cwd: workspace, env });
      expect(run).toMatchObject({
        code: 0,
        stderr: '',
        stdout: 'Sunny and 21 °C: a T-shirt will do.\n(completed)\n',
      });
      expect(toolResults(server.requests[1]!)).toEqual(['Sunny and 21 °C in Paris.']);
      const sessions = join(workspace, '.agentchart/sessions');
      const [recording, ...others] = await readdir(sessions);
      expect(others).toEqual([]);
      // UPDATE_RECORDINGS=1 makes this run replay-test/'s recording (after a change to what the log holds).
      if (process.env.UPDATE_RECORDINGS === '1')
        await copyFile(join(sessions, recording!), join(examplesDir, 'replay-test/weather.jsonl'));
    },
  );

  exampleTest(
    'replay-test/: passes in a project that installed agentchart, and fails once behaviour differs',
    async ({ expect, workspace }) => {
      // A project of the reader's own: agentchart installed as npm unpacks it (package.json and dist/, its
      // dependencies and vitest linked), the example copied in, and a copy of it whose recording ended
      // otherwise than agentchart ends that turn today.
      const installed = join(workspace, 'node_modules/agentchart');
      await mkdir(installed, { recursive: true });
      await copyFile(join(repoRoot, 'package.json'), join(installed, 'package.json'));
      await cp(join(repoRoot, 'dist'), join(installed, 'dist'), { recursive: true });
      await symlink(join(repoRoot, 'node_modules'), join(installed, 'node_modules'));
      await symlink(join(repoRoot, 'node_modules/vitest'), join(workspace, 'node_modules/vitest'));
      const folder = join(workspace, 'examples/replay-test');
      await mkdir(folder, { recursive: true });
      const test = await readFile(join(examplesDir, 'replay-test/weather.test.ts'), 'utf8');
      const recorded = await readFile(join(examplesDir, 'replay-test/weather.jsonl'), 'utf8');
      await writeFile(join(folder, 'weather.test.ts'), test);
      await writeFile(join(folder, 'weather.jsonl'), recorded);
      await writeFile(
        join(folder, 'changed.test.ts'),
        test.replace('replay-test/weather.jsonl', 'replay-test/changed.jsonl'),
      );
      const changed = recorded.replace('"reason":"completed"', '"reason":"max_steps"');
      await writeFile(join(folder, 'changed.jsonl'), changed);
      const run = await runNode([join(repoRoot, 'node_modules/vitest/vitest.mjs'), 'run'], {
        cwd: workspace,
      });
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/^ ✓ examples\/replay-test\/weather\.test\.ts \(1 test\)/m);
      expect(run.stdout).toMatch(/^ ❯ examples\/replay-test\/changed\.test\.ts \(1 test \| 1 failed\)/m);
      const turnEnd = recorded.split('\n').findIndex((line) => line.includes('"type":"turn.end"'));
      expect(run.stderr).toContain(
        ' FAIL  examples/replay-test/changed.test.ts > answers as it did when recorded\n' +
          `ReplayDivergenceError: replay diverged at seq ${turnEnd} (turn.end): the runtime wrote turn.end with other content\n` +
          '  data.reason: "max_steps" → "completed"\n',
      );
    },
  );

  exampleTest(
    'web-stream.ts: text streams into the response; a client that leaves cancels the turn',
    async ({ expect, workspace, wire }) => {
      const server = await wire((request) =>
        lastText(request) === 'Count to three'
          ? { turn: { text: ['One, ', 'two, ', 'three.'] } }
          : { turn: { text: ['Once upon ', 'a time'], ending: 'hang' } },
      );
      const example = startExample('web-stream.ts', {
        cwd: workspace,
        env: { ...modelEnv(server), PORT: '0' },
      });
      const base = /Listening on (http:\/\/localhost:\d+)\//.exec(await example.waitFor('?q=...\n'))![1];
      const whole = await fetch(`${base}/?q=Count+to+three`);
      expect(await whole.text()).toBe('One, two, three.');
      await example.waitFor('Count to three → completed\n');
      // The model is still writing (its stream stays open) when the first words reach the client.
      const leaving = new AbortController();
      const partial = await fetch(`${base}/?q=Tell+a+story`, { signal: leaving.signal });
      const reader = partial.body!.pipeThrough(new TextDecoderStream()).getReader();
      let received = '';
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        received += chunk.value;
        if (received === 'Once upon a time') break;
      }
      expect(received).toBe('Once upon a time');
      leaving.abort();
      await example.waitFor('Tell a story → canceled\n');
      example.child.kill('SIGTERM');
      const run = await example.done;
      expect(run).toMatchObject({ code: 0, signal: null, stderr: '' });
      expect(linesOf(run.stdout)).toEqual([
        `Listening on ${base}/?q=...`,
        'Count to three → completed',
        'Tell a story → canceled',
      ]);
      expect(server.requests).toHaveLength(2);
    },
  );

  exampleTest(
    'typed-result.ts: a zod schema for the answer; a wrong answer goes back with the reason, then fits',
    async ({ expect, workspace, wire }) => {
      const server = await wire((request) =>
        messagesOf(request).length <= 2
          ? {
              turn: {
                text: ['{"severity":"urgent","component":"session","summary":"Logged out on rotate"}'],
              },
            }
          : {
              turn: { text: ['{"severity":"high","component":"session","summary":"Logged out on rotate"}'] },
            },
      );
      const run = await runExample('typed-result.ts', { cwd: workspace, env: modelEnv(server) });
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(linesOf(run.stdout)).toEqual(['HIGH · session · Logged out on rotate']);
      expect(server.requests).toHaveLength(2);
      // The schema went to the server as OpenAI's structured output, and the refusal back to the model.
      const format = server.requests[0]!.body.response_format as {
        type: string;
        json_schema: { schema: object };
      };
      expect(format.type).toBe('json_schema');
      expect(format.json_schema.schema).toMatchObject({
        properties: { severity: { enum: ['low', 'medium', 'high'] } },
      });
      expect(lastText(server.requests[1]!)).toContain('severity');
    },
  );
});
