// The demo's scenario, shared by `agentchart demo` and the live `agentchart inspect`: a tiny project with a
// bug, the scripted model that fixes it, the steering message, and the system it runs on.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { LiveEvent } from '../actors/live-event.ts';
import { systemClock } from '../core/clock.ts';
import type { McpServers } from '../mcp/server-config.ts';
import type { ScriptEntry } from '../providers/scripted.ts';
import type { ModelRequest, Provider } from '../providers/types.ts';
import { type AgentSystem, createAgentSystem } from '../runtime/create-agent-system.ts';
import { fileStore } from '../session/file-store.ts';
import type { AnyTool } from '../tools/define-tool.ts';

/** What the demo asks the agent, and what it says to it while it works. */
export const demoTask = 'The tests in this project fail. Find the bug, fix it and show that the tests pass.';
export const demoSteer = 'Also add a short comment in the code explaining the fix.';

/** The tiny project the demo agent works on: `sum` skips the first value. */
const demoWorkspace: Record<string, string> = {
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
  // The test output without timings or stack traces: the same code prints the same text, so a replay
  // with live tools in a restored copy of this project writes the recorded results byte for byte.
  'reporter.mjs': [
    'export default async function* reporter(source) {',
    '  for await (const event of source) {',
    "    if (event.type === 'test:pass') yield '✔ ' + event.data.name + '\\n';",
    "    if (event.type === 'test:fail') {",
    '      const error = event.data.details?.error;',
    "      const message = String(error?.cause?.message ?? error?.message ?? error).split('\\n').join('\\n  ');",
    "      yield '✖ ' + event.data.name + '\\n  ' + message + '\\n';",
    '    }',
    "    if (event.type === 'test:diagnostic' && /^(tests|pass|fail) \\d+$/.test(event.data.message))",
    "      yield 'ℹ ' + event.data.message + '\\n';",
    '  }',
    '}',
    '',
  ].join('\n'),
  // A command hook in Claude Code's format (docs/hooks-and-settings.md): JSON on stdin, exit 2 blocks
  // with stderr.
  '.agentchart/hooks/guard.mjs': [
    "import { readFileSync } from 'node:fs';",
    "const { tool_input } = JSON.parse(readFileSync(0, 'utf8'));",
    'if (/\\brm -rf\\b|\\bgit push\\b/.test(tool_input.command)) {',
    "  process.stderr.write('the demo guard does not allow rm -rf or git push');",
    '  process.exit(2);',
    '}',
    '',
  ].join('\n'),
};

/** The demo's one skill, in the workspace's skills folder: loaded by the agent's first step. */
const demoSkill = {
  path: '.agentchart/skills/fix-failing-tests/SKILL.md',
  text: [
    '---',
    'name: fix-failing-tests',
    'description: How to fix failing tests in this project; load it before changing code to make tests pass.',
    '---',
    '1. Read the code under test and the tests before changing anything.',
    '2. Run `node --test` to see the failure for yourself.',
    '3. Make the smallest change that fixes the cause, then run the tests again.',
    '',
  ].join('\n'),
};

/** The demo's command hook: every `bash` call goes past the guard script first. */
export const demoHook = {
  type: 'command',
  command: 'node .agentchart/hooks/guard.mjs',
  matcher: 'bash',
} as const;

const buggyLine = '  for (let i = 1; i < values.length; i++) total += values[i];';
const fixedLine = '  for (let i = 0; i < values.length; i++) total += values[i];';
const fixComment = '  // Start at index 0: the loop used to begin at 1 and skipped the first value.';
const testCommand = 'node --test --test-reporter=./reporter.mjs';

/** The call whose start makes the demo steer the agent: the first test run. */
const steerTriggerCallId = 'call_tests_before';

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
      text: "I'll load the project's skill for failing tests and look at its files, the code and the tests.",
      toolCalls: [
        { id: 'call_skill', name: 'skill', input: { name: 'fix-failing-tests' } },
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

/** A fresh temporary folder for one demo run: the project in `workspace/`, the session logs beside it. */
export async function prepareDemo(prefix: string): Promise<{ root: string; workspace: string }> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  const workspace = join(root, 'workspace');
  const files = { ...demoWorkspace, [demoSkill.path]: demoSkill.text };
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(workspace, path)), { recursive: true });
    await writeFile(join(workspace, path), content);
  }
  return { root, workspace };
}

/**
 * The system a demo runs on: the given model and tools on the real clock, session logs in `root`, and
 * nobody to ask, so every call runs (bypass). The project's own instructions files are not read.
 */
export function demoSystem(options: {
  root: string;
  workspace: string;
  model: Provider;
  tools: AnyTool[];
  /** MCP servers for the demo agent (`agentchart demo --mcp-config FILE`). */
  mcpServers?: McpServers;
}): AgentSystem {
  return createAgentSystem({
    model: options.model,
    tools: options.tools,
    ...(options.mcpServers ? { mcpServers: options.mcpServers } : {}),
    store: fileStore(options.root),
    cwd: options.workspace,
    hooks: { preTool: [demoHook] },
    permissionMode: 'bypass',
    clock: systemClock,
    projectInstructions: false,
    // The workspace's skill only (not the user's own), so every demo run is the same.
    skills: { folders: [join(options.workspace, '.agentchart', 'skills')] },
  });
}

/** Whether a live event is the moment the demo steers the agent: its first test run has started. */
export function isSteerMoment(event: LiveEvent): boolean {
  return (
    event.type === 'log' &&
    event.event.type === 'tool.started' &&
    event.event.data.callId === steerTriggerCallId
  );
}
