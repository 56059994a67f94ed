import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { LiveEvent } from '../actors/live-event.ts';
import { systemClock } from '../core/clock.ts';
import { type ScriptEntry, scripted } from '../providers/scripted.ts';
import type { ModelRequest } from '../providers/types.ts';
import { createAgentSystem } from '../runtime/create-agent-system.ts';
import { fileStore } from '../session/file-store.ts';
import { codingTools } from '../tools/coding-tools.ts';
import { type CliIo, line } from './commands/context.ts';
import { driveSession } from './commands/drive-session.ts';

export type DemoFlags = { json?: boolean; keep?: boolean };

/** What the demo asks the agent, and what it says to it while it works. */
export const demoTask = 'The tests in this project fail. Find the bug, fix it and show that the tests pass.';
export const demoSteer = 'Also add a short comment in the code explaining the fix.';

/** The tiny project the demo agent works on: `sum` skips the first value. */
export const demoWorkspace: Record<string, string> = {
  'package.json': `${JSON.stringify(
    { name: 'demo-math', version: '1.0.0', type: 'module', scripts: { test: 'node --test' } },
    null,
    2,
  )}\n`,
  'src/math.js': [
    '// Small number helpers.',
    'export function sum(values) {',
    '  let total = 0;',
    '  for (let i = 1; i < values.length; i++) total += values[i];',
    '  return total;',
    '}',
    '',
    'export function average(values) {',
    '  return values.length === 0 ? 0 : sum(values) / values.length;',
    '}',
    '',
  ].join('\n'),
  'test/math.test.js': [
    "import assert from 'node:assert/strict';",
    "import { test } from 'node:test';",
    "import { average, sum } from '../src/math.js';",
    '',
    "test('sum adds every value', () => assert.equal(sum([1, 2, 3]), 6));",
    "test('sum of nothing is 0', () => assert.equal(sum([]), 0));",
    "test('average divides the sum by the count', () => assert.equal(average([2, 4]), 3));",
    '',
  ].join('\n'),
};

const buggyLine = '  for (let i = 1; i < values.length; i++) total += values[i];';
const fixedLine = '  for (let i = 0; i < values.length; i++) total += values[i];';
const fixComment = '  // Start at index 0: the loop used to begin at 1 and skipped the first value.';
const testCommand = 'node --test --test-reporter=spec';

/** The call whose start makes the demo steer the agent: the first test run. */
export const steerTriggerCallId = 'call_tests_before';

function steeredIn(request: ModelRequest): boolean {
  return request.messages.some((message) => message.role === 'user' && message.content === demoSteer);
}

function lastToolOutput(request: ModelRequest): string {
  const last = request.messages.findLast((message) => message.role === 'tool');
  return last?.role === 'tool' ? last.content : '';
}

/**
 * The scripted model: one entry per model request. Steps 3 and 5 read the request, so they react to the
 * steering message and to the real test output instead of assuming them.
 */
export function demoScript(): ScriptEntry[] {
  return [
    {
      text: "I'll look at the project first: its files, the code under test and the tests.",
      toolCalls: [
        { id: 'call_glob', name: 'glob', input: { pattern: '**/*.js' } },
        { id: 'call_read_source', name: 'read_file', input: { path: 'src/math.js' } },
        { id: 'call_read_tests', name: 'read_file', input: { path: 'test/math.test.js' } },
        { id: 'call_grep_loops', name: 'grep', input: { pattern: 'for \\(let', path: 'src' } },
      ],
    },
    {
      text: '`sum` starts its loop at index 1, so it skips the first value. Let me run the tests to confirm.',
      toolCalls: [{ id: steerTriggerCallId, name: 'bash', input: { command: testCommand } }],
    },
    (request) => {
      const steered = steeredIn(request);
      const text = steered
        ? 'The tests fail as expected. I will start the loop at 0 and, as you asked, add a comment explaining the fix.'
        : 'The tests fail as expected. I will start the loop at 0.';
      const replacement = steered ? `${fixComment}\n${fixedLine}` : fixedLine;
      return {
        text,
        toolCalls: [
          {
            id: 'call_fix',
            name: 'edit_file',
            input: { path: 'src/math.js', old_string: buggyLine, new_string: replacement },
          },
        ],
      };
    },
    {
      text: 'Now the tests again.',
      toolCalls: [{ id: 'call_tests_after', name: 'bash', input: { command: testCommand } }],
    },
    (request) => {
      const passed =
        /exit code 0|\bfail 0\b/.test(lastToolOutput(request)) && !/✖/.test(lastToolOutput(request));
      return {
        text: passed
          ? 'Fixed: `sum` in src/math.js began its loop at index 1 and skipped the first value. ' +
            'It now starts at 0, with a comment explaining why, and all 3 tests pass.'
          : 'I changed the loop in `sum`, but the tests still fail; see the output above.',
      };
    },
  ];
}

async function writeWorkspace(root: string): Promise<void> {
  for (const [path, content] of Object.entries(demoWorkspace)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

const scriptedNotice = [
  'This is the agentchart demo. The model is SCRIPTED: no LLM is called and no API key is needed.',
  'Everything else is real: the statecharts, the session log, and the coding tools working on real files.',
];
const realModelHint =
  'To use a real model: ANTHROPIC_API_KEY=… npx agentchart run "<task>" (or OPENAI_API_KEY=…)';

/**
 * `agentchart demo`: a scripted coding task through the real runtime and tools in a temporary project —
 * read files in parallel, run failing tests, fix the bug, run them again — with a steering message sent
 * while it works. The session log is kept for `agentchart replay`.
 */
export async function demoCommand(flags: DemoFlags, io: CliIo): Promise<number> {
  const json = flags.json ?? false;
  const ui = json ? io.stderr : io.stdout;
  const root = await mkdtemp(join(tmpdir(), 'agentchart-demo-'));
  const workspace = join(root, 'workspace');
  await writeWorkspace(workspace);
  for (const text of scriptedNotice) line(ui, text);
  line(ui, `Workspace: ${workspace}`);
  line(ui, `Task: ${demoTask}`);
  line(ui);
  const model = scripted(demoScript(), { clock: systemClock });
  const system = createAgentSystem({
    model,
    tools: codingTools(),
    store: fileStore(root),
    cwd: workspace,
    permissionMode: 'bypass',
    clock: systemClock,
    projectInstructions: false,
  });
  try {
    const agent = await system.createAgent();
    const steerOnce = (event: LiveEvent) => {
      if (event.type !== 'log' || event.event.type !== 'tool.started') return;
      if (event.event.data.callId !== steerTriggerCallId) return;
      line(
        json ? io.stderr : io.stdout,
        `(demo) while the tests run, the user steers: agent.steer("${demoSteer}")`,
      );
      agent.steer(demoSteer);
    };
    const exitCode = await driveSession({
      io,
      json,
      system,
      agent,
      providerName: model.name,
      sessionFile: join(root, `${agent.sessionId}.jsonl`),
      start: () => agent.run(demoTask),
      onEvent: steerOnce,
      epilogue: [`Replay it: npx agentchart replay ${join(root, `${agent.sessionId}.jsonl`)}`],
    });
    model.assertConsumed();
    line(ui, flags.keep ? `Workspace kept at ${workspace}` : 'The workspace was removed (--keep keeps it).');
    line(ui, `That was a SCRIPTED model (no LLM was called). ${realModelHint}`);
    return exitCode;
  } finally {
    await system.dispose();
    if (!flags.keep) await rm(workspace, { recursive: true, force: true });
  }
}
