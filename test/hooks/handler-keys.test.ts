// Handler keys real settings files carry (hooks "Common handler fields", "Command handler fields"): read as
// Claude Code reads them, or refused at start with a ConfigError naming the entry; never skipped in silence.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/config-error.ts';
import { createAgentSystem } from '../../src/index.ts';
import { scripted } from '../../src/testing.ts';
import { decided, makeWorkspace, runTurn, toolResults } from './claude-kit.ts';

const bash = (id: string, command: string) => ({ toolCalls: [{ id, name: 'bash', input: { command } }] });

let workspace: { path: string; remove: () => Promise<void> };
beforeEach(async () => {
  workspace = await makeWorkspace();
});
afterEach(() => workspace.remove());

const refusal = async (handler: Record<string, unknown>, event = 'PreToolUse', matcher = 'Bash') => {
  await writeFile(
    join(workspace.path, 'team.json'),
    JSON.stringify({ hooks: { [event]: [{ matcher, hooks: [handler] }] } }),
  );
  try {
    createAgentSystem({ model: scripted([]), cwd: workspace.path, settings: 'team.json' });
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('the settings file was accepted');
};

describe('handler keys in settings files', () => {
  it('refuses handlers agentchart cannot run as written, naming the entry and why', async () => {
    expect(await refusal({ type: 'http', url: 'https://example.com/hook' })).toMatch(
      /team\.json is wrong at hooks\.PreToolUse\.0\.hooks\.0\.type: "http" hooks are not run by agentchart/,
    );
    for (const type of ['prompt', 'agent', 'mcp_tool'])
      expect(await refusal({ type, prompt: 'x' })).toContain(`"${type}" hooks are not run by agentchart`);
    expect(await refusal({ type: 'command', command: 'x', shell: 'powershell' })).toMatch(
      /hooks\.0\.shell: agentchart runs hook commands with bash only/,
    );
    expect(await refusal({ type: 'command', command: 'x', asyncRewake: true })).toContain('asyncRewake');
    expect(await refusal({ type: 'command', command: 'x', if: 'Bash(' })).toContain('not a permission rule');
    expect(await refusal({ type: 'command', command: 'x', if: 'Bash(git *)' }, 'Stop')).toMatch(
      /hooks\.Stop\.0\.hooks\.0\.if: "if" applies to tool events only/,
    );
  });

  it('refuses a SessionStart or PreCompact matcher that names no source or trigger (a typo never runs)', async () => {
    const echo = { type: 'command', command: 'echo hi' };
    expect(await refusal(echo, 'SessionStart', 'startp|resume')).toMatch(
      /hooks\.SessionStart\.0\.matcher: SessionStart matchers select startup, resume, clear, compact, fork; "startp" is none of them/,
    );
    expect(await refusal(echo, 'PreCompact', 'Manual')).toContain('"Manual" is none of them');
  });

  it('`if` runs the hook only for calls its permission rule matches, reading the command as the rules do', async () => {
    const settings = {
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              {
                type: 'command',
                command: 'echo "no commits here" >&2; exit 2',
                if: 'Bash(git commit:*)',
                statusMessage: 'Checking the commit…',
                shell: 'bash',
                once: true,
                timeout: 10,
              },
            ],
          },
        ],
      },
    };
    const { log } = await runTurn(workspace.path, settings, [
      bash('c1', 'git commit -m x'),
      bash('c2', 'cd . && git commit --amend'),
      bash('c3', 'git status --short || true'),
      { text: 'done' },
    ]);
    expect(decided(log)).toEqual([
      ['preTool', 'c1', 'deny', 'no commits here'],
      ['preTool', 'c2', 'deny', 'no commits here'],
    ]);
    expect(toolResults(log).map(([id, outcome]) => [id, outcome])).toEqual([
      ['c1', 'denied'],
      ['c2', 'denied'],
      ['c3', 'ok'],
    ]);
  });

  it('exec form (`args`) runs the program with no shell, its placeholder filled in; async decides nothing', async () => {
    const settings = {
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              // With no shell, `$HOME; exit 2` is one literal argument.
              {
                type: 'command',
                command: 'node',
                // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code's placeholder, as users write it.
                args: ['${CLAUDE_PROJECT_DIR}/record.mjs', '$HOME; exit 2'],
              },
              { type: 'command', command: 'exit 2', async: true },
            ],
          },
        ],
      },
    };
    await writeFile(
      join(workspace.path, 'record.mjs'),
      "import { readFileSync, writeFileSync } from 'node:fs';\nconst input = JSON.parse(readFileSync(0, 'utf8'));\nwriteFileSync('recorded.json', JSON.stringify({ argv: process.argv.slice(2), cwd: input.cwd, event: input.hook_event_name }));\n",
    );
    const { log } = await runTurn(workspace.path, settings, [bash('c1', 'echo ran'), { text: 'done' }]);
    expect(JSON.parse(await readFile(join(workspace.path, 'recorded.json'), 'utf8'))).toEqual({
      argv: ['$HOME; exit 2'],
      cwd: workspace.path,
      event: 'PreToolUse',
    });
    expect(decided(log).map(([, id, outcome]) => `${id} ${outcome}`)).toEqual(['c1 pass', 'c1 pass']);
    expect(toolResults(log)).toEqual([['c1', 'ok', 'ran\n[exit code 0]']]);
  });
});

describe('command hooks in the hooks option', () => {
  it('refuses `if` where no tool call is involved, and takes it at preTool', () => {
    const command = { type: 'command' as const, command: 'exit 2', if: 'Bash(git *)' };
    expect(() => createAgentSystem({ model: scripted([]), hooks: { stop: [command] } })).toThrow(
      /"if" applies to preTool and postTool hooks only/,
    );
    expect(() => createAgentSystem({ model: scripted([]), hooks: { preTool: [command] } })).not.toThrow();
  });
});
