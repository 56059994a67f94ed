// Real published hook scripts, run by agentchart as Claude Code runs them, each asserting what Claude Code
// documents for that file (docs/claude-code/summary.md says what each does when run). Sources: the scripts
// under docs/claude-code/corpus (repository, path and commit in its PROVENANCE.md) are read in place;
// npelloux's and karanb192's are copied under test/fixtures/claude-code (its PROVENANCE.md).
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  corpus,
  decided,
  fixtures,
  makeWorkspace,
  pluginSettings,
  runTurn,
  toolResults,
} from './claude-kit.ts';

const ralph = join(corpus, 'anthropics__claude-code/plugins/ralph-wiggum');
const explanatory = join(corpus, 'anthropics__claude-code/plugins/explanatory-output-style');
const validator = join(corpus, 'anthropics__claude-code/examples/hooks/bash_command_validator_example.py');
const disler = join(corpus, 'disler__claude-code-hooks-mastery/.claude/hooks/pre_tool_use.py');
const npelloux = join(fixtures, 'npelloux__living-architecture/hooks/block-dangerous-commands.sh');
const karanb = join(fixtures, 'karanb192__claude-code-hooks');

const bash = (id: string, command: string) => ({ toolCalls: [{ id, name: 'bash', input: { command } }] });
const preToolUse = (matcher: string, command: string) => ({
  hooks: { PreToolUse: [{ matcher, hooks: [{ type: 'command', command }] }] },
});

let workspace: { path: string; remove: () => Promise<void> };
beforeEach(async () => {
  workspace = await makeWorkspace();
});
afterEach(() => workspace.remove());

describe('ralph-wiggum stop-hook.sh (anthropics/claude-code): a Stop hook that reads the transcript', () => {
  const startLoop = async (maxIterations: number, promise: string) => {
    await mkdir(join(workspace.path, '.claude'));
    await writeFile(
      join(workspace.path, '.claude/ralph-loop.local.md'),
      `---\niteration: 1\nmax_iterations: ${maxIterations}\ncompletion_promise: "${promise}"\n---\nBuild the thing.\n`,
    );
  };
  const settings = async () => pluginSettings(await readFile(join(ralph, 'hooks/hooks.json'), 'utf8'), ralph);

  it('keeps the turn going with the same prompt until max_iterations, then lets it stop', async () => {
    await startLoop(3, 'DONE');
    const { result, log, requests } = await runTurn(workspace.path, await settings(), [
      { text: 'first try' },
      { text: 'second try' },
      { text: 'third try' },
    ]);
    expect(result).toMatchObject({ reason: 'completed', text: 'third try' });
    // Claude Code: `decision: block` + `reason` is the next instruction; `systemMessage` is for the user.
    const stops = log.filter((event) => event.type === 'hook.decided');
    expect(stops.map((event) => [event.data.outcome, event.data.reason, event.data.systemMessage])).toEqual([
      [
        'block',
        'Build the thing.',
        '🔄 Ralph iteration 2 | To stop: output <promise>DONE</promise> (ONLY when statement is TRUE - do not lie to exit!)',
      ],
      [
        'block',
        'Build the thing.',
        '🔄 Ralph iteration 3 | To stop: output <promise>DONE</promise> (ONLY when statement is TRUE - do not lie to exit!)',
      ],
      // Its plain stdout ("🛑 Ralph loop: Max iterations (3) reached.") is not an answer at Stop.
      ['pass', undefined, undefined],
    ]);
    expect(requests.map((request) => request.messages.at(-1))).toEqual([
      { role: 'user', content: 'go' },
      { role: 'user', content: 'Build the thing.' },
      { role: 'user', content: 'Build the thing.' },
    ]);
    expect(existsSync(join(workspace.path, '.claude/ralph-loop.local.md'))).toBe(false);
  });

  it('finds the completion promise in the last assistant text of the transcript and lets the turn stop', async () => {
    await startLoop(10, 'all tests pass');
    const { result, log } = await runTurn(workspace.path, await settings(), [
      { text: 'working on it' },
      { text: 'Done: <promise>all   tests\npass</promise>' },
    ]);
    expect(result).toMatchObject({ reason: 'completed' });
    expect(decided(log).map(([, , outcome]) => outcome)).toEqual(['block', 'pass']);
    expect(existsSync(join(workspace.path, '.claude/ralph-loop.local.md'))).toBe(false);
  });
});

describe('explanatory-output-style session-start.sh (anthropics/claude-code)', () => {
  it("SessionStart's additionalContext reaches the model before the first prompt", async () => {
    const settings = pluginSettings(
      await readFile(join(explanatory, 'hooks/hooks.json'), 'utf8'),
      explanatory,
    );
    const { requests } = await runTurn(workspace.path, settings, [{ text: 'ok' }]);
    const [context, prompt] = requests[0]!.messages as { role: string; content: string }[];
    expect(context!.role).toBe('user');
    expect(context!.content).toMatch(/^You are in 'explanatory' output style mode/);
    expect(context!.content).toContain('`★ Insight ─────────────────────────────────────`');
    expect(prompt).toEqual({ role: 'user', content: 'go' });
  });
});

describe('bash_command_validator_example.py (anthropics/claude-code), wired as its docstring says', () => {
  it('exit 2 blocks grep and find -name with its stderr as the reason; other commands run', async () => {
    const { log } = await runTurn(workspace.path, preToolUse('Bash', `python3 ${validator}`), [
      bash('c1', 'grep -r foo .'),
      bash('c2', 'find . -name x.py'),
      bash('c3', 'echo ran'),
      { text: 'done' },
    ]);
    expect(toolResults(log)).toEqual([
      [
        'c1',
        'denied',
        `Permission denied by hook python3 ${validator}: • Use 'rg' (ripgrep) instead of 'grep' for better performance and features`,
      ],
      [
        'c2',
        'denied',
        `Permission denied by hook python3 ${validator}: • Use 'rg --files | rg pattern' or 'rg --files -g pattern' instead of 'find -name' for better performance`,
      ],
      ['c3', 'ok', 'ran\n[exit code 0]'],
    ]);
  });
});

describe("karanb192's block-dangerous-commands.js", () => {
  it('its deny JSON blocks `rm -rf ~`; its `{}` for `ls` is no decision, so the call runs', async () => {
    const plugin = JSON.parse(await readFile(join(karanb, 'hooks.json'), 'utf8'));
    const group = plugin.hooks.PreToolUse[0];
    // HOME keeps the script's own log in the workspace (it writes ~/.claude/hooks-logs/).
    const command = `HOME="${workspace.path}" ${group.hooks[0].command.replace(/\$\{CLAUDE_PLUGIN_ROOT\}/, karanb)}`;
    const { log } = await runTurn(workspace.path, preToolUse(group.matcher, command), [
      bash('c1', 'rm -rf ~'),
      bash('c2', 'ls'),
      { text: 'done' },
    ]);
    expect(decided(log)).toEqual([
      ['preTool', 'c1', 'deny', '🚨 [rm-home] rm targeting home directory'],
      ['preTool', 'c2', 'pass', undefined],
    ]);
    expect(toolResults(log).map(([id, outcome]) => [id, outcome])).toEqual([
      ['c1', 'denied'],
      ['c2', 'ok'],
    ]);
  });
});

describe("npelloux/living-architecture's block-dangerous-commands.sh (reads only the first line of stdin)", () => {
  it('exit 2 blocks --no-verify and --force; a plain command runs', async () => {
    const settings = preToolUse('Bash', npelloux);
    const { log } = await runTurn(workspace.path, settings, [
      bash('c1', 'git commit --no-verify -m x'),
      bash('c2', 'git push --force'),
      bash('c3', 'echo fine'),
      { text: 'done' },
    ]);
    const reason = 'Blocked: This command bypasses safety checks (--no-verify, --force, --hard)';
    expect(decided(log)).toEqual([
      ['preTool', 'c1', 'deny', reason],
      ['preTool', 'c2', 'deny', reason],
      ['preTool', 'c3', 'pass', undefined],
    ]);
    expect(toolResults(log).at(-1)).toEqual(['c3', 'ok', 'fine\n[exit code 0]']);
  });
});

describe('disler\'s pre_tool_use.py (matcher "", every tool)', () => {
  it('blocks reading .env (Read and cat) and rm -rf; lets other calls through', async () => {
    await writeFile(join(workspace.path, '.env'), 'KEY=secret\n');
    await writeFile(join(workspace.path, 'notes.txt'), 'hello\n');
    // Its settings run it with `uv run`; uv is not installed here, and the script needs only python3.
    const { log } = await runTurn(workspace.path, preToolUse('', `python3 ${disler}`), [
      { toolCalls: [{ id: 'c1', name: 'read_file', input: { path: '.env' } }] },
      bash('c2', 'cat .env'),
      bash('c3', 'rm -rf build'),
      { toolCalls: [{ id: 'c4', name: 'read_file', input: { path: 'notes.txt' } }] },
      { text: 'done' },
    ]);
    const envReason =
      'BLOCKED: Access to .env files containing sensitive data is prohibited\nUse .env.sample for template files instead';
    expect(decided(log)).toEqual([
      ['preTool', 'c1', 'deny', envReason],
      ['preTool', 'c2', 'deny', envReason],
      ['preTool', 'c3', 'deny', 'BLOCKED: Dangerous rm command detected and prevented'],
      ['preTool', 'c4', 'pass', undefined],
    ]);
    expect(toolResults(log).at(-1)).toEqual(['c4', 'ok', expect.stringContaining('hello')]);
  });
});
