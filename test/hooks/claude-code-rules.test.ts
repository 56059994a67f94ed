// Where agentchart used to fail open or differ from Claude Code's documented hook behaviour (issue 26):
// PreToolUse hooks asked before a headless denial, SessionStart matchers by source, plain stdout as context,
// continue:false at Stop, exit 2 at PostToolUse. Each test fails on the code before the fix.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codingTools, createAgentSystem } from '../../src/index.ts';
import { replaySession } from '../../src/replay/replay-session.ts';
import { assertSameLog } from '../../src/session/compare-logs.ts';
import { memoryStore } from '../../src/session/memory-store.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { scripted } from '../../src/testing.ts';
import { decided, makeWorkspace, runTurn, toolResults } from './claude-kit.ts';
import { counterIds, echoTool, steppingClock } from './hook-kit.ts';

const bash = (id: string, command: string) => ({ toolCalls: [{ id, name: 'bash', input: { command } }] });
const hook = (command: string, extra: Record<string, unknown> = {}) => ({
  type: 'command',
  command,
  ...extra,
});
const answer = (value: unknown) => `echo '${JSON.stringify(value)}'`;
const allowBash = answer({
  hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' },
});

let workspace: { path: string; remove: () => Promise<void> };
beforeEach(async () => {
  workspace = await makeWorkspace();
});
afterEach(() => workspace.remove());

const approvals = (log: readonly LogEvent[]) =>
  log
    .filter((event) => event.type === 'approval.decided' || event.type === 'hook.decided')
    .map((event) => `${event.type} ${event.data.callId} ${event.data.outcome} ${event.data.by ?? ''}`.trim());

describe('headless: PreToolUse hooks are asked before "needs approval" becomes a denial', () => {
  it("a hook's allow runs a call the mode would ask about; without one it is denied after the hooks", async () => {
    // Headless (no approver) in default mode: bash needs approval. The hook allows `echo` only.
    const guard = `node -e "const i=JSON.parse(require('fs').readFileSync(0,'utf8')); if (i.tool_input.command.startsWith('echo')) console.log(JSON.stringify({hookSpecificOutput:{hookEventName:'PreToolUse',permissionDecision:'allow'}}))"`;
    const settings = { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [hook(guard)] }] } };
    const { log } = await runTurn(
      workspace.path,
      settings,
      [bash('c1', 'echo allowed'), bash('c2', 'touch x'), { text: 'done' }],
      { permissionMode: 'default' },
    );
    expect(toolResults(log)).toEqual([
      ['c1', 'ok', 'allowed\n[exit code 0]'],
      [
        'c2',
        'denied',
        'Permission denied: exec access needs approval in default mode; nobody can approve it in this session (headless), so it was denied. Do not retry this call; choose another approach or stop and explain.',
      ],
    ]);
    expect(approvals(log)).toEqual([
      'hook.decided c1 allow',
      'hook.decided c2 pass',
      'approval.decided c2 deny headless',
    ]);
    // The replay answers from the recorded decisions, in the same order, and runs no hook.
    const replayed = await replaySession(log, {
      setup: { tools: codingTools(), cwd: workspace.path, permissionMode: 'default' },
    });
    assertSameLog(log, replayed.events);
  });

  it("a deny rule wins over a hook's allow, and so does the ask of a rule that cannot read the command", async () => {
    const settings = {
      permissions: { deny: ['Bash(rm:*)'] },
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [hook(allowBash)] }] },
    };
    const { log } = await runTurn(
      workspace.path,
      settings,
      [bash('c1', 'rm -rf build'), bash('c2', 'eval "$CMD"'), { text: 'done' }],
      { permissionMode: 'default' },
    );
    expect(toolResults(log).map(([id, outcome]) => [id, outcome])).toEqual([
      ['c1', 'denied'],
      ['c2', 'denied'],
    ]);
    // Both are decided by the rules before any hook: a hook's allow could not pass either of them.
    expect(approvals(log)).toEqual(['approval.decided c1 deny rule', 'approval.decided c2 deny headless']);
    expect(toolResults(log)[1]![2]).toMatch(/cannot tell whether the command runs what Bash\(rm:\*\) denies/);
  });
  it("with someone to ask, a hook's allow skips the mode's question but not a rule's", async () => {
    const asked: string[] = [];
    const settings = {
      permissions: { deny: ['Bash(rm:*)'] },
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [hook(allowBash)] }] },
    };
    const { log } = await runTurn(
      workspace.path,
      settings,
      [bash('c1', 'echo plain'), bash('c2', 'eval "$CMD"'), { text: 'done' }],
      {
        permissionMode: 'default',
        approve: async ({ callId }) => {
          asked.push(callId);
          return 'deny';
        },
      },
    );
    expect(asked).toEqual(['c2']);
    expect(toolResults(log).map(([id, outcome]) => [id, outcome])).toEqual([
      ['c1', 'ok'],
      ['c2', 'denied'],
    ]);
  });
});

describe('SessionStart matchers select by source', () => {
  it('a startup group runs on createAgent, a resume group on resumeAgent, an unmatched one never', async () => {
    const settingsFile = join(workspace.path, 'team.json');
    const group = (matcher: string) => ({ matcher, hooks: [hook(`echo "${matcher} context"`)] });
    await writeFile(
      settingsFile,
      JSON.stringify({
        hooks: { SessionStart: [group('startup'), group('resume'), group('clear|compact')] },
      }),
    );
    const store = memoryStore();
    const options = {
      tools: [echoTool()],
      store,
      clock: steppingClock(),
      cwd: workspace.path,
      projectInstructions: false,
      permissionMode: 'bypass' as const,
      settings: 'team.json',
    };
    const first = createAgentSystem({ ...options, model: scripted([{ text: 'one' }]), ids: counterIds() });
    await (await first.createAgent({ id: 's' })).run('hello');
    await first.dispose();
    const second = createAgentSystem({
      ...options,
      model: scripted([{ text: 'two' }]),
      ids: counterIds('r'),
    });
    const resumed = await second.resumeAgent('s');
    await resumed.run('again');
    const log = resumed.log();
    await second.dispose();
    expect(decided(log).map(([point, , outcome]) => `${point} ${outcome}`)).toEqual([
      'sessionStart modify',
      'sessionStart modify',
    ]);
    // Plain stdout of a SessionStart hook is context, as in Claude Code.
    const messages = log.filter((event) => event.type === 'user.message').map((event) => event.data.content);
    expect(messages).toEqual(['startup context', 'hello', 'resume context', 'again']);
  });
});

describe('plain (non-JSON) stdout', () => {
  it('is context at UserPromptSubmit, and nothing at PreToolUse (the call goes on)', async () => {
    const settings = {
      hooks: {
        UserPromptSubmit: [{ hooks: [hook('echo "Today is Tuesday."')] }],
        PreToolUse: [{ matcher: '*', hooks: [hook('echo "checking… ok"')] }],
      },
    };
    const { log, requests } = await runTurn(workspace.path, settings, [
      bash('c1', 'echo ran'),
      { text: 'done' },
    ]);
    expect(requests[0]!.messages).toEqual([{ role: 'user', content: 'go\n\nToday is Tuesday.' }]);
    expect(decided(log)).toEqual([
      ['userMessage', undefined, 'modify', undefined],
      ['preTool', 'c1', 'pass', undefined],
    ]);
    expect(toolResults(log)).toEqual([['c1', 'ok', 'ran\n[exit code 0]']]);
  });
});

describe('PreToolUse additionalContext', () => {
  it("reaches the model with the call's result, and replays from the log", async () => {
    const context = answer({
      hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: 'The tests live in test/.' },
    });
    const { log } = await runTurn(
      workspace.path,
      { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [hook(context)] }] } },
      [bash('c1', 'echo ran'), { text: 'done' }],
    );
    expect(toolResults(log)).toEqual([['c1', 'ok', 'ran\n[exit code 0]\n\nThe tests live in test/.']]);
    expect(decided(log)).toEqual([['preTool', 'c1', 'modify', undefined]]);
    const replayed = await replaySession(log, { setup: { tools: codingTools(), cwd: workspace.path } });
    assertSameLog(log, replayed.events);
  });
});

describe('Stop and PostToolUse answers', () => {
  it('continue:false at Stop lets the turn end (stopReason is logged, not sent to the model)', async () => {
    const stop = answer({
      continue: false,
      stopReason: 'Enough for today.',
      decision: 'block',
      reason: 'more',
    });
    const { result, log, requests } = await runTurn(
      workspace.path,
      { hooks: { Stop: [{ hooks: [hook(stop)] }] } },
      [{ text: 'done' }, { text: 'never' }],
    );
    expect(result).toMatchObject({ reason: 'completed', text: 'done' });
    expect(requests).toHaveLength(1);
    expect(decided(log)).toEqual([['stop', undefined, 'pass', 'Enough for today.']]);
  });

  it('exit 2 at PostToolUse cannot block: its stderr is shown to the model with the result', async () => {
    const { log } = await runTurn(
      workspace.path,
      { hooks: { PostToolUse: [{ matcher: 'Bash', hooks: [hook('echo "lint: 2 problems" >&2; exit 2')] }] } },
      [bash('c1', 'echo ran'), { text: 'done' }],
    );
    expect(toolResults(log)).toEqual([['c1', 'ok', 'ran\n[exit code 0]\n\nlint: 2 problems']]);
  });
});
