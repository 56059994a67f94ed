// What a command hook can put in front of the model is capped (hookTextMaxChars), and a hook leaves
// nothing behind: real scripts that shout megabytes, keep stdout open from a background child, or start a
// `setsid` child that leaves their process group. Leftovers are asserted gone by pid.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { CommandHook } from '../../src/hooks/hook-types.ts';
import { isEvent } from '../../src/session/types.ts';
import { echoCall, hookedAgent, hookTrail, results } from './hook-kit.ts';

const dir = mkdtempSync(join(tmpdir(), 'agentchart-hook-bounds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A node script as a command hook (it reads its stdin first, as a real hook does). */
function script(name: string, body: string, extra: Partial<CommandHook> = {}): CommandHook {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, `import { readFileSync } from 'node:fs';\nreadFileSync(0, 'utf8');\n${body}\n`);
  return { type: 'command', command: `node ${file}`, ...extra };
}

const cut = (text: string, whole: string) =>
  `${text.slice(0, 10_000)}\n[cut to the first 10000 characters of ${whole}]`;

/** Whether `pid` is a live process (a zombie waiting to be reaped is not). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2)[0]!);
  } catch {
    return false;
  }
}

// Processes a failing test may have left: killed by pid, so nothing outlives the file.
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0))
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already, as it should be.
    }
});

function pidIn(file: string): number {
  const pid = Number(readFileSync(file, 'utf8'));
  started.push(pid);
  return pid;
}

async function untilWritten(file: string): Promise<void> {
  for (let tries = 0; tries < 800; tries++) {
    try {
      if (readFileSync(file, 'utf8').trim() !== '') return;
    } catch {
      // Not written yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${file} was never written`);
}

describe('what a command hook puts in front of the model is capped', () => {
  it('exit 2 with 3 MB of stderr: the denial the model reads is cut to 10 000 characters, saying how much', async () => {
    const loud = script('loud', `process.stderr.write('x'.repeat(3 * 1024 * 1024)); process.exitCode = 2;`);
    const { agent, system } = await hookedAgent([{ toolCalls: [echoCall('c1', 'hi')] }, { text: 'ok' }], {
      hooks: { preTool: [loud] },
    });
    await agent.run('go');
    const reason = cut('x'.repeat(10_000), '3145728 bytes');
    expect(results(agent.log())).toEqual([`c1 denied Permission denied by hook ${loud.command}: ${reason}`]);
    expect(hookTrail(agent.log())).toEqual([`preTool ${loud.command} deny: ${reason}`]);
    await system.dispose();
  });

  it('a PreToolUse answer too long to read whole (3 MB) is invalid and denies, not plain text that passes', async () => {
    const long = script(
      'long',
      `process.stdout.write(JSON.stringify({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'z'.repeat(3 * 1024 * 1024) } }));`,
    );
    const { agent, system, ran } = await hookedAgent(
      [{ toolCalls: [echoCall('c1', 'hi')] }, { text: 'ok' }],
      {
        hooks: { preTool: [long] },
      },
    );
    await agent.run('go');
    expect(ran).toEqual([]);
    expect(hookTrail(agent.log())).toEqual([
      `preTool ${long.command} invalid: stdout was cut (over 1000000 bytes); it was not read`,
    ]);
    await system.dispose();
  });

  it('a stop hook that refuses with a 1 MB reason three times injects three capped messages', async () => {
    const huge = 'y'.repeat(1_000_000);
    const refuse = script(
      'refuse',
      `process.stdout.write(JSON.stringify({ decision: 'block', reason: ${JSON.stringify(huge)} }));`,
    );
    const { agent, system, model } = await hookedAgent(
      [{ text: 'one' }, { text: 'two' }, { text: 'three' }, { text: 'four' }],
      { hooks: { stop: [refuse] } },
    );
    const result = await agent.run('go');
    expect(result).toMatchObject({ reason: 'completed', text: 'four' });
    const injected = agent
      .log()
      .filter((event) => isEvent(event, 'user.message') && event.data.channel === 'inject')
      .map((event) => (event.data as { content: string }).content);
    const message = cut(huge, '1000000 characters');
    expect(injected).toEqual([message, message, message]);
    expect(model.requests[3]!.messages.map((m) => (m.role === 'user' ? m.content : m.role))).toEqual([
      'go',
      'assistant',
      message,
      'assistant',
      message,
      'assistant',
      message,
    ]);
    await system.dispose();
  });

  it('additionalContext and a replaced tool result are capped too', async () => {
    const context = 'c'.repeat(20_000);
    const annotate = script(
      'annotate',
      `process.stdout.write(JSON.stringify({ hookSpecificOutput: { updatedToolOutput: 'r'.repeat(50000), additionalContext: ${JSON.stringify(context)} } }));`,
    );
    const { agent, system } = await hookedAgent([{ toolCalls: [echoCall('c1', 'hi')] }, { text: 'ok' }], {
      hooks: { postTool: [annotate] },
    });
    await agent.run('go');
    const content = `${cut('r'.repeat(50_000), '50000 characters')}\n\n${cut(context, '20000 characters')}`;
    expect(results(agent.log())).toEqual([`c1 ok ${content}`]);
    await system.dispose();
  });
});

describe('a command hook leaves nothing behind', () => {
  it("a background child that keeps stdout open: the hook's answer counts, and the child is stopped", async () => {
    const pidFile = join(dir, 'holder.pid');
    // The background sleep inherits stdout, so the pipe stays open after bash exits.
    const holder: CommandHook = {
      type: 'command',
      command: `cat >/dev/null; sleep 300 & echo $! > ${pidFile}; echo '{"decision":"deny","reason":"not now"}'`,
      timeoutMs: 15_000,
    };
    const { agent, system } = await hookedAgent([{ toolCalls: [echoCall('c1', 'hi')] }, { text: 'ok' }], {
      hooks: { preTool: [holder] },
    });
    await agent.run('go');
    const pid = pidIn(pidFile);
    expect(hookTrail(agent.log())).toEqual([`preTool ${holder.command} deny: not now`]);
    expect(results(agent.log())).toEqual([`c1 denied Permission denied by hook ${holder.command}: not now`]);
    // The answer did not wait for the pipe's holder; it is swept after the answer, and dispose waits for
    // the sweep (checking before dispose would race the sweep).
    await system.dispose();
    expect(running(pid)).toBe(false);
  }, 30_000);

  it('a setsid child of a hook that answered is stopped; dispose waits for that', async () => {
    const pidFile = join(dir, 'detached.pid');
    const detach: CommandHook = {
      type: 'command',
      command: `cat >/dev/null; setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! > ${pidFile}`,
    };
    const { agent, system } = await hookedAgent([{ toolCalls: [echoCall('c1', 'hi')] }, { text: 'ok' }], {
      hooks: { postTool: [detach] },
    });
    await agent.run('go');
    const pid = pidIn(pidFile);
    expect(hookTrail(agent.log())).toEqual([`postTool ${detach.command} pass`]);
    await system.dispose();
    expect(running(pid)).toBe(false);
  });

  it('a hook still running at dispose: it and its setsid child are gone when dispose returns', async () => {
    const pidFile = join(dir, 'running.pid');
    const hang: CommandHook = {
      type: 'command',
      command: `cat >/dev/null; setsid sleep 300 </dev/null >/dev/null 2>&1 & echo "$! $$" > ${pidFile}; sleep 300`,
    };
    const { agent, system } = await hookedAgent([{ toolCalls: [echoCall('c1', 'hi')] }], {
      hooks: { preTool: [hang] },
    });
    const run = agent.run('go');
    await untilWritten(pidFile);
    const [child, hook] = readFileSync(pidFile, 'utf8').trim().split(' ').map(Number) as [number, number];
    started.push(child, hook);
    expect([running(child), running(hook)]).toEqual([true, true]);
    await system.dispose();
    expect([running(child), running(hook)]).toEqual([false, false]);
    expect((await run).reason).toBe('canceled');
  });
});
