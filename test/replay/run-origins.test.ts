// Origins `agentchart run` records with something beside the coding tools — command hooks from the user's
// settings, a skill folder in the workspace, a real stdio MCP server, plan mode, automatic compaction — one
// row each: recorded by the built CLI against the local OpenAI-compatible server, then checked elsewhere
// (origin-kit: recorded tools, live tools in a restored workspace, a tampered copy).
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LogEvent } from '../../src/session/types.ts';
import { runBuiltCliProcess } from '../support/child-run.ts';
import { wireToolCall as call, useCliWorld } from '../support/cli-world.ts';
import { everythingBin } from '../support/mcp-servers.ts';
import { installSkill } from '../support/skill-kit.ts';
import type { WireReply } from '../support/wire/reply.ts';
import { checkEverywhere, eventsOf, sessionLogOf, type Tamper, tempFolder } from './origin-kit.ts';

const settings = async (root: string, value: unknown) => {
  await mkdir(join(root, '.agentchart'), { recursive: true });
  await writeFile(join(root, '.agentchart', 'settings.json'), JSON.stringify(value));
};

type Origin = {
  name: string;
  /** Writes what the origin needs into the (empty) workspace and home; the workspace's files are copied
   * into every restored workspace. */
  prepare(folders: { workspace: string; home: string }): Promise<void>;
  args: string[];
  replies: (folders: { workspace: string; home: string }) => WireReply[];
  /** What the recording must hold for the row to test its origin at all. */
  recorded(log: readonly LogEvent[]): void;
  tamper: Tamper;
  /** What the replaying machine's home holds (default: nothing); its skills are looked up by name. */
  replayHome?: (home: string) => Promise<void>;
};

// A Claude Code-style PreToolUse guard (stdin JSON, exit 2 with the reason on stderr), run by the real node.
const guard = {
  matcher: 'bash',
  hooks: [
    {
      type: 'command',
      command: `node -e "const i=JSON.parse(require('fs').readFileSync(0,'utf8')); if (i.tool_input.command.includes('secret')) { process.stderr.write('no secret here'); process.exit(2); }"`,
    },
  ],
};

const origins: Origin[] = [
  {
    name: 'command hooks from the settings',
    prepare: ({ home }) =>
      settings(home, {
        hooks: {
          PreToolUse: [guard],
          // Claude Code adds a UserPromptSubmit hook's stdout to the context; PostToolUse sees each result.
          UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo "Remember: tests first."' }] }],
          PostToolUse: [{ matcher: 'bash', hooks: [{ type: 'command', command: 'cat > /dev/null' }] }],
        },
      }),
    args: ['--mode', 'bypass'],
    replies: () => [
      { turn: { toolCalls: [call('c1', 'bash', { command: 'echo secret' })] } },
      { turn: { toolCalls: [call('c2', 'bash', { command: 'echo hi > hi.txt' })] } },
      { turn: { text: ['Done.'] } },
    ],
    recorded: (log) =>
      expect(
        eventsOf(log, 'hook.decided').map((event) => [
          event.data.point,
          event.data.callId,
          event.data.outcome,
        ]),
      ).toEqual([
        ['userMessage', undefined, 'modify'],
        ['preTool', 'c1', 'deny'],
        ['preTool', 'c2', 'pass'],
        ['postTool', 'c2', 'pass'],
      ]),
    tamper: { type: 'approval.decided', path: ['reason'], value: 'exec access is allowed by a rule' },
  },
  {
    name: 'a skill in the workspace',
    prepare: async ({ workspace }) => {
      await installSkill(join(workspace, '.agentchart', 'skills'));
    },
    args: ['--mode', 'bypass'],
    replies: ({ workspace }) => {
      const base = join(workspace, '.agentchart', 'skills', 'webapp-testing');
      return [
        { turn: { toolCalls: [call('load', 'skill', { name: 'webapp-testing' })] } },
        {
          turn: {
            toolCalls: [
              call('help', 'bash', { command: `python3 ${base}/scripts/with_server.py --help` }),
              call('read', 'read_file', { path: `${base}/SKILL.md`, limit: 3 }),
            ],
          },
        },
        { turn: { text: ['The helper starts servers.'] } },
      ];
    },
    recorded: (log) =>
      expect(eventsOf(log, 'tool.result').map((event) => [event.data.callId, event.data.outcome])).toEqual([
        ['load', 'ok'],
        ['help', 'ok'],
        ['read', 'ok'],
      ]),
    tamper: { type: 'turn.end', path: ['usage', 'input'], value: 1 },
  },
  {
    name: "a skill in the user's home, installed under another home where it replays",
    prepare: async ({ home }) => {
      await installSkill(join(home, '.claude', 'skills'));
    },
    args: ['--mode', 'bypass'],
    // The model runs the skill's script by the folder the skill told it (the recording's home).
    replies: ({ home }) => {
      const base = join(home, '.claude', 'skills', 'webapp-testing');
      return [
        { turn: { toolCalls: [call('load', 'skill', { name: 'webapp-testing' })] } },
        {
          turn: {
            toolCalls: [call('help', 'bash', { command: `python3 ${base}/scripts/with_server.py --help` })],
          },
        },
        { turn: { text: ['The helper starts servers.'] } },
      ];
    },
    recorded: (log) =>
      expect(eventsOf(log, 'tool.result').map((event) => [event.data.callId, event.data.outcome])).toEqual([
        ['load', 'ok'],
        ['help', 'ok'],
      ]),
    tamper: { type: 'approval.decided', path: ['reason'], value: 'allowed by a rule' },
    replayHome: async (home) => {
      await installSkill(join(home, '.claude', 'skills'));
    },
  },
  {
    name: 'a stdio MCP server',
    prepare: ({ home }) =>
      settings(home, {
        mcpServers: { everything: { command: process.execPath, args: [everythingBin, 'stdio'] } },
      }),
    args: ['--mode', 'bypass'],
    replies: () => [
      { turn: { toolCalls: [call('e1', 'mcp__everything__echo', { message: 'hello' })] } },
      { turn: { text: ['It echoed.'] } },
    ],
    recorded: (log) =>
      expect(eventsOf(log, 'tool.result').map((event) => [event.data.callId, event.data.content])).toEqual([
        ['e1', 'Echo: hello'],
      ]),
    tamper: { type: 'approval.decided', path: ['reason'], value: 'allowed by a rule' },
  },
  {
    name: 'plan mode',
    prepare: ({ workspace }) => writeFile(join(workspace, 'a.txt'), 'one\n'),
    args: ['--mode', 'plan'],
    replies: () => [
      { turn: { toolCalls: [call('r1', 'read_file', { path: 'a.txt' })] } },
      { turn: { toolCalls: [call('p1', 'exit_plan_mode', { plan: '1. Change a.txt' })] } },
      { turn: { text: ['Staying in plan mode.'] } },
    ],
    recorded: (log) =>
      expect(eventsOf(log, 'approval.decided').map((event) => [event.data.callId, event.data.by])).toEqual([
        ['r1', 'mode'],
        ['p1', 'headless'],
      ]),
    tamper: {
      type: 'approval.decided',
      select: (event) => event.data.callId === 'r1',
      path: ['by'],
      value: 'rule',
    },
  },
  {
    name: 'automatic compaction',
    prepare: ({ workspace }) => writeFile(join(workspace, 'a.txt'), 'one\n'),
    args: ['--context-window', '1000'],
    // Two steps in the turn: the second's request fills 90 % of the window, so the first step is compacted.
    replies: () => [
      { turn: { toolCalls: [call('r1', 'read_file', { path: 'a.txt' })] } },
      { turn: { toolCalls: [call('r2', 'list_dir', { path: '.' })], usage: { input: 900, output: 5 } } },
      { turn: { text: ['They asked to read a.txt; I read it.'] } },
      { turn: { text: ['It says one.'] } },
    ],
    recorded: (log) =>
      expect(eventsOf(log, 'compaction').map((event) => event.data.trigger)).toEqual(['auto']),
    tamper: { type: 'compaction', path: ['tokensBefore'], value: 1 },
  },
];

describe('replay of what `agentchart run` recorded, by origin', () => {
  const world = useCliWorld({ prefix: 'agentchart-origin', state: 'in-home' });

  it.each(origins.map((origin) => [origin.name, origin] as const))(
    '%s',
    async (_name, origin) => {
      const { server, workspace, home, env } = world;
      await origin.prepare({ workspace, home });
      const start = await tempFolder('start');
      await cp(workspace, start, { recursive: true });
      for (const reply of origin.replies({ workspace, home })) server.reply(reply);
      const run = await runBuiltCliProcess(['run', 'go', '--cwd', workspace, ...origin.args], {
        env,
        timeoutMs: 60_000,
      });
      expect(run).toMatchObject({ code: 0, timedOut: false });
      const log = sessionLogOf(run.stdout);
      const copy = join(await tempFolder('recording'), 'session.jsonl');
      await cp(log, copy);
      // The recording's workspace and home are gone: a teammate's machine, CI.
      await rm(workspace, { recursive: true, force: true });
      await rm(home, { recursive: true, force: true });
      const restore = async () => {
        const restored = await tempFolder('restored');
        await cp(start, restored, { recursive: true });
        return restored;
      };
      const replayHome = await tempFolder('replay-home');
      await origin.replayHome?.(replayHome);
      const events = await checkEverywhere({
        log: copy,
        tamper: origin.tamper,
        restore,
        env: { HOME: replayHome, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' },
        replayOptions: { skills: { folders: [join(replayHome, '.claude', 'skills')] } },
      });
      origin.recorded(events);
    },
    240_000,
  );
});
