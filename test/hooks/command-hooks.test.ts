// Command hooks: real scripts run by the shell, reading the hook's JSON on stdin and answering on stdout
// (or exiting 2 with a reason on stderr), for each point the runtime consults.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CommandHook } from '../../src/hooks/hook-types.ts';
import { echoCall, hookedAgent, hookTrail, results } from './hook-kit.ts';

const dir = mkdtempSync(join(tmpdir(), 'agentchart-hooks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a node script that reads the hook's JSON as `input` and runs `body`; returns its command hook. */
function script(name: string, body: string, extra: Partial<CommandHook> = {}): CommandHook {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(
    file,
    `import { readFileSync, appendFileSync } from 'node:fs';\nconst input = JSON.parse(readFileSync(0, 'utf8'));\nappendFileSync(${JSON.stringify(join(dir, `${name}.seen`))}, JSON.stringify(input) + '\\n');\n${body}\n`,
  );
  return { type: 'command', command: `node ${file}`, ...extra };
}

const seen = (name: string) =>
  readFileSync(join(dir, `${name}.seen`), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const out = (value: unknown) => `process.stdout.write(${JSON.stringify(JSON.stringify(value))});`;

describe('command hooks at preTool', () => {
  it("read Claude Code's fields on stdin; allow, rewrite (updatedInput) and block with exit 2, in order", async () => {
    const rewrite = script(
      'pre-rewrite',
      `process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { text: input.tool_input.text + '!' } } }));`,
    );
    const block = script(
      'pre-block',
      `if (input.tool_input.text === 'bad!') { process.stderr.write('bad words'); process.exit(2); }`,
      { matcher: 'echo|Bash' },
    );
    const skipped = script('pre-skipped', 'process.exit(2);', { matcher: 'Bash' });
    const { agent, system, ran } = await hookedAgent(
      [{ toolCalls: [echoCall('c1', 'good'), echoCall('c2', 'bad')] }, { text: 'ok' }],
      { hooks: { preTool: [rewrite, block, skipped] } },
    );
    await agent.run('go');
    expect(ran).toEqual(['good!']);
    expect(results(agent.log())).toEqual([
      'c1 ok echo: good!',
      `c2 denied Permission denied by hook ${block.command}: bad words`,
    ]);
    expect(hookTrail(agent.log())).toEqual([
      `preTool ${rewrite.command} allow`,
      `preTool ${block.command} pass`,
      `preTool ${rewrite.command} allow`,
      `preTool ${block.command} deny: bad words`,
    ]);
    const [first] = seen('pre-rewrite');
    expect(first).toEqual({
      session_id: 'a',
      transcript_path: expect.stringMatching(/agentchart-transcripts-.*\/a\.jsonl$/),
      cwd: process.cwd(),
      permission_mode: 'bypassPermissions',
      hook_event_name: 'PreToolUse',
      turn: 1,
      step: 1,
      tool_name: 'echo',
      tool_input: { text: 'good' },
      tool_use_id: 'c1',
    });
    // The second hook saw the input as the first rewrote it.
    expect(seen('pre-block').map((input) => input.tool_input)).toEqual([{ text: 'good!' }, { text: 'bad!' }]);
    await system.dispose();
  });

  it('fail closed: a timeout, a JSON answer that is wrong or another exit code denies', async () => {
    const cases: Array<[CommandHook, string]> = [
      [script('pre-slow', 'await new Promise((r) => setTimeout(r, 30_000));', { timeoutMs: 300 }), 'timeout'],
      [script('pre-garbage', out({ decision: 7 })), 'invalid'],
      [script('pre-crash', "process.stderr.write('oops'); process.exit(1);"), 'error'],
      [script('pre-wrong', out({ hookSpecificOutput: { permissionDecision: 'perhaps' } })), 'invalid'],
    ];
    for (const [hook, outcome] of cases) {
      const { agent, system, ran } = await hookedAgent(
        [{ toolCalls: [echoCall('c1', 'x')] }, { text: 'ok' }],
        {
          hooks: { preTool: [hook] },
        },
      );
      await agent.run('go');
      expect(ran).toEqual([]);
      expect(hookTrail(agent.log())[0]).toMatch(new RegExp(`^preTool .* ${outcome}: `));
      expect(results(agent.log())[0]).toMatch(/^c1 denied Permission denied by hook /);
      await system.dispose();
    }
  });

  it('a cancel while the hook runs stops its whole process group and still gives the call its result', async () => {
    const pidFile = join(dir, 'child.pid');
    const hook = script(
      'pre-hang',
      `import { spawn } from 'node:child_process'; import { writeFileSync } from 'node:fs';\nconst child = spawn('sleep', ['60'], { stdio: 'ignore' }); writeFileSync(${JSON.stringify(pidFile)}, String(child.pid));\nawait new Promise(() => {});`,
    );
    const { agent, system } = await hookedAgent([{ toolCalls: [echoCall('c1', 'x')] }], {
      hooks: { preTool: [hook] },
    });
    const run = agent.run('go');
    for (let i = 0; i < 200 && !existsPid(pidFile); i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(pid)).toBe(true);
    agent.cancel();
    expect((await run).reason).toBe('canceled');
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(alive(pid)).toBe(false);
    expect(results(agent.log())).toEqual(['c1 aborted_before_start Canceled before it started.']);
    expect(hookTrail(agent.log())).toEqual([]);
    await system.dispose();
  });
});

function existsPid(file: string): boolean {
  try {
    return readFileSync(file, 'utf8').length > 0;
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('command hooks at postTool, userMessage and stop', () => {
  it('postTool: updatedToolOutput replaces, additionalContext annotates, silence passes', async () => {
    const replace = script('post-replace', out({ hookSpecificOutput: { updatedToolOutput: 'replaced' } }));
    const annotate = script('post-annotate', out({ decision: 'block', reason: 'lint failed' }));
    const silent = script('post-silent', '');
    const { agent, system } = await hookedAgent([{ toolCalls: [echoCall('c1', 'x')] }, { text: 'ok' }], {
      hooks: { postTool: [replace, silent, annotate] },
    });
    await agent.run('go');
    expect(results(agent.log())).toEqual(['c1 ok replaced\n\nlint failed']);
    expect(seen('post-replace')[0]).toMatchObject({
      hook_event_name: 'PostToolUse',
      tool_response: 'echo: x',
      is_error: false,
    });
    expect(seen('post-silent')[0]).toMatchObject({ tool_response: 'replaced' });
    await system.dispose();
  });

  it('userMessage: updatedPrompt rewrites, additionalContext appends, exit 2 blocks', async () => {
    const rewrite = script('user-rewrite', out({ hookSpecificOutput: { updatedPrompt: 'rewritten' } }));
    const context = script(
      'user-context',
      out({ hookSpecificOutput: { additionalContext: 'today is Tuesday' } }),
    );
    const pass = await hookedAgent([{ text: 'ok' }], { hooks: { userMessage: [rewrite, context] } });
    await pass.agent.run('original');
    expect(pass.model.requests[0]!.messages).toEqual([
      { role: 'user', content: 'rewritten\n\ntoday is Tuesday' },
    ]);
    expect(seen('user-rewrite')[0]).toMatchObject({
      hook_event_name: 'UserPromptSubmit',
      prompt: 'original',
    });
    await pass.system.dispose();

    const block = script('user-block', "process.stderr.write('not here'); process.exit(2);");
    const blocked = await hookedAgent([{ text: 'never' }], { hooks: { userMessage: [block] } });
    expect((await blocked.agent.run('x')).reason).toBe('blocked');
    expect(blocked.model.requests).toEqual([]);
    expect(hookTrail(blocked.agent.log())).toEqual([`userMessage ${block.command} block: not here`]);
    await blocked.system.dispose();
  });

  it('stop: decision block refuses once (stop_hook_active tells the second call), then the turn ends', async () => {
    const hook = script(
      'stop-once',
      `if (!input.stop_hook_active) ${out({ decision: 'block', reason: 'Add a test.' })}`,
    );
    const { agent, system, model } = await hookedAgent([{ text: 'first' }, { text: 'second' }], {
      hooks: { stop: [hook] },
    });
    const result = await agent.run('go');
    expect(result).toMatchObject({ reason: 'completed', text: 'second' });
    expect(model.requests[1]!.messages.at(-1)).toEqual({ role: 'user', content: 'Add a test.' });
    expect(
      seen('stop-once').map((input) => [input.hook_event_name, input.stop_hook_active, input.text]),
    ).toEqual([
      ['Stop', false, 'first'],
      ['Stop', true, 'second'],
    ]);
    await system.dispose();
  });
});
