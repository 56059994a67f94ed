// Command hooks written for Claude Code run as they are: `"matcher": "Bash"` fires for `bash`, the script reads
// `tool_name: "Bash"` and Claude Code's `tool_input` fields, and its `updatedInput` comes back in agentchart's.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codingTools, createAgentSystem } from '../../src/index.ts';
import { scripted } from '../../src/providers/scripted.ts';

const plugin = fileURLToPath(
  new URL('../fixtures/claude-code/karanb192__claude-code-hooks/', import.meta.url),
);

describe('Claude Code command hooks', () => {
  let workspace: string;
  beforeEach(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'agentchart-claude-hooks-'));
  });
  afterEach(() => rm(workspace, { recursive: true, force: true }));

  const run = async (settings: unknown, calls: { name: string; input: unknown }[]) => {
    await writeFile(join(workspace, 'team.json'), JSON.stringify(settings));
    const system = createAgentSystem({
      model: scripted([
        ...calls.map((call, index) => ({ toolCalls: [{ id: `c${index + 1}`, ...call }] })),
        { text: 'done' },
      ]),
      tools: codingTools(),
      cwd: workspace,
      projectInstructions: false,
      permissionMode: 'bypass',
      settings: 'team.json',
    });
    const agent = await system.createAgent({ id: 'a' });
    await agent.run('go');
    const log = agent.log();
    await system.dispose();
    return log;
  };

  it("blocks through a published guard that checks tool_name === 'Bash', wired by its plugin's matcher", async () => {
    const published = JSON.parse(await readFile(join(plugin, 'hooks.json'), 'utf8'));
    const group = published.hooks.PreToolUse[0];
    // The plugin's own command, with its plugin root as Claude Code fills it in; HOME keeps its log here.
    const command = `HOME="${workspace}" ${group.hooks[0].command.replace(/\$\{CLAUDE_PLUGIN_ROOT\}/, plugin.slice(0, -1))}`;
    const log = await run(
      { hooks: { PreToolUse: [{ matcher: group.matcher, hooks: [{ type: 'command', command }] }] } },
      [
        { name: 'bash', input: { command: 'git reset --hard HEAD~3' } },
        { name: 'bash', input: { command: 'rm -rf .' } },
        { name: 'bash', input: { command: 'echo fine' } },
        { name: 'read_file', input: { path: 'team.json' } },
      ],
    );
    const decided = log.filter((event) => event.type === 'hook.decided');
    expect(decided.map((event) => [event.data.callId, event.data.outcome, event.data.reason])).toEqual([
      ['c1', 'deny', '⛔ [git-reset-hard] git reset --hard loses uncommitted work'],
      ['c2', 'deny', '🚨 [rm-cwd] rm deleting current directory contents'],
      ['c3', 'pass', undefined],
    ]);
    const results = log.filter((event) => event.type === 'tool.started').map((event) => event.data.callId);
    expect(results).toEqual(['c3', 'c4']);
  });

  it("hands Edit|Write|MultiEdit hooks Claude Code's fields and reads updatedInput back in agentchart's", async () => {
    // A hook in the shape Claude Code documents: it records what it read and moves every write to out/.
    await writeFile(
      join(workspace, 'redirect.mjs'),
      [
        "import { appendFileSync, readFileSync } from 'node:fs';",
        "const payload = JSON.parse(readFileSync(0, 'utf8'));",
        "appendFileSync('seen.jsonl', JSON.stringify([payload.tool_name, payload.tool_input]) + '\\n');",
        "if (payload.tool_name !== 'Write') process.exit(0);",
        "const updatedInput = { ...payload.tool_input, file_path: 'out/' + payload.tool_input.content + '.txt' };",
        "console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput } }));",
      ].join('\n'),
    );
    await writeFile(join(workspace, 'a.txt'), 'one\n');
    const hook = { type: 'command', command: 'node redirect.mjs' };
    const log = await run({ hooks: { PreToolUse: [{ matcher: 'Edit|Write|MultiEdit', hooks: [hook] }] } }, [
      { name: 'write_file', input: { path: 'moved', content: 'hello' } },
      { name: 'edit_file', input: { path: 'a.txt', old_string: 'one', new_string: 'two' } },
      { name: 'read_file', input: { path: 'a.txt' } },
    ]);
    const seen = (await readFile(join(workspace, 'seen.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(seen).toEqual([
      ['Write', { file_path: join(workspace, 'moved'), content: 'hello' }],
      ['Edit', { file_path: join(workspace, 'a.txt'), old_string: 'one', new_string: 'two' }],
    ]);
    const decided = log.filter((event) => event.type === 'hook.decided');
    expect(decided.map((event) => [event.data.callId, event.data.outcome, event.data.input])).toEqual([
      ['c1', 'modify', { path: 'out/hello.txt', content: 'hello' }],
      ['c2', 'pass', undefined],
    ]);
    expect(await readFile(join(workspace, 'out/hello.txt'), 'utf8')).toBe('hello');
    expect(await readFile(join(workspace, 'a.txt'), 'utf8')).toBe('two\n');
  });
});
