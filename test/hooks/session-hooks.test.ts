// `sessionStart` and `sessionEnd` hooks: observers told when an agent is set up (they may add context the
// model reads before the session's next input) and when it is disposed (bounded; a failure does not stop
// the dispose). Both are logged as `hook.decided`, and a replay answers them from the log.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandHooksFrom, hooksSettingsSchema } from '../../src/hooks/settings-schema.ts';
import { createAgentSystem } from '../../src/index.ts';
import { replaySession } from '../../src/replay/replay-session.ts';
import { assertSameLog } from '../../src/session/compare-logs.ts';
import { memoryStore } from '../../src/session/memory-store.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { scripted } from '../../src/testing.ts';
import { counterIds, echoTool, hookedAgent, hookTrail, steppingClock } from './hook-kit.ts';

const types = (log: readonly LogEvent[]) => log.map((event) => event.type);

describe('sessionStart hooks', () => {
  it('are told the source; their context, joined in order, is logged and read by the model before the prompt', async () => {
    const told: unknown[] = [];
    const { agent, system, model } = await hookedAgent([{ text: 'hi' }], {
      hooks: {
        sessionStart: [
          ({ source, sessionId }) => {
            told.push({ source, sessionId });
            return { additionalContext: 'The build is red.' };
          },
          () => {
            throw new Error('boom');
          },
          () => ({ decision: 'block', reason: 'observers cannot block', additionalContext: 'Branch: main.' }),
        ],
      },
    });
    expect(told).toEqual([{ source: 'startup', sessionId: 'a' }]);
    // Run during setup, logged when the agent first acts: before its first turn.
    expect(types(agent.log())).toEqual(['session.start']);
    await agent.run('go');
    expect(types(agent.log()).slice(0, 7)).toEqual([
      'session.start',
      'inbox.queued',
      'hook.decided',
      'hook.decided',
      'hook.decided',
      'user.message',
      'turn.start',
    ]);
    expect(hookTrail(agent.log())).toEqual([
      'sessionStart sessionStart[0] modify',
      'sessionStart sessionStart[1] error: the hook threw: boom',
      'sessionStart sessionStart[2] block: observers cannot block',
    ]);
    expect(model.requests[0]?.messages.map((message) => (message as { content: string }).content)).toEqual([
      'The build is red.\n\nBranch: main.',
      'go',
    ]);
    await system.dispose();
  });

  it('a command hook adds context with hookSpecificOutput.additionalContext; resume tells source resume', async () => {
    const store = memoryStore();
    const command = `node -e "const i=JSON.parse(require('fs').readFileSync(0,'utf8')); process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: i.hook_event_name, additionalContext: 'source=' + i.source } }))"`;
    const options = {
      model: scripted([{ text: 'first' }, { text: 'second' }]),
      tools: [echoTool()],
      store,
      ids: counterIds(),
      clock: steppingClock(),
      projectInstructions: false,
      permissionMode: 'bypass' as const,
      hooks: { sessionStart: [{ type: 'command' as const, command }] },
    };
    const first = createAgentSystem(options);
    const agent = await first.createAgent({ id: 's' });
    expect((await agent.run('one')).text).toBe('first');
    await first.dispose();

    const second = createAgentSystem({
      ...options,
      model: scripted([{ text: 'again' }]),
      ids: counterIds('r'),
    });
    const resumed = await second.resumeAgent('s');
    expect((await resumed.run('two')).text).toBe('again');
    const contexts = resumed
      .log()
      .filter((event) => event.type === 'user.message')
      .map((event) => (event.data as { content: string }).content);
    expect(contexts).toEqual(['source=startup', 'one', 'source=resume', 'two']);
    await second.dispose();
  });
});

describe('sessionStart hooks and dispose', () => {
  it('a dispose during creation aborts a sessionStart hook still running, and the agent is rolled back', async () => {
    let signal: AbortSignal | undefined;
    let entered!: () => void;
    const started = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const store = memoryStore();
    const system = createAgentSystem({
      model: scripted([{ text: 'never asked' }]),
      store,
      ids: counterIds(),
      clock: steppingClock(),
      projectInstructions: false,
      hooks: {
        sessionStart: [
          {
            name: 'slow',
            // Far past the test's own limit: only the abort can end it in time.
            timeoutMs: 600_000,
            run: (_input, options) =>
              new Promise<undefined>((resolve) => {
                signal = options.signal;
                entered();
                options.signal.addEventListener('abort', () => resolve(undefined));
              }),
          },
        ],
      },
    });
    const creating = system.createAgent({ id: 'a' });
    await started;
    await system.dispose();
    expect(signal?.aborted).toBe(true);
    await expect(creating).rejects.toThrow(/disposed/);
    expect(await store.list()).toEqual([]);
  });
});

describe('sessionEnd hooks', () => {
  it('are told at dispose, logged before session.end; a throw or a hook past its limit does not stop the dispose', async () => {
    const told: unknown[] = [];
    const { agent, system } = await hookedAgent([{ text: 'hi' }], {
      hooks: {
        sessionEnd: [
          ({ reason }) => {
            told.push(reason);
            return undefined;
          },
          () => {
            throw new Error('boom');
          },
          { name: 'stuck', timeoutMs: 30, run: () => new Promise(() => {}) },
        ],
      },
    });
    await agent.run('go');
    await system.dispose();
    expect(told).toEqual(['disposed']);
    expect(types(agent.log()).slice(-4)).toEqual([
      'hook.decided',
      'hook.decided',
      'hook.decided',
      'session.end',
    ]);
    expect(hookTrail(agent.log())).toEqual([
      'sessionEnd sessionEnd[0] pass',
      'sessionEnd sessionEnd[1] error: the hook threw: boom',
      'sessionEnd stuck timeout: the hook did not answer within 30 ms',
    ]);
  });

  it('a command hook runs at dispose with Claude Code’s SessionEnd input', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentchart-session-end-'));
    const out = join(dir, 'ended.json');
    const { agent, system } = await hookedAgent([{ text: 'hi' }], {
      hooks: { sessionEnd: [{ type: 'command', command: `cat > ${JSON.stringify(out)}` }] },
    });
    await agent.run('go');
    await system.dispose();
    const input = JSON.parse(await readFile(out, 'utf8'));
    expect(input).toMatchObject({ hook_event_name: 'SessionEnd', reason: 'disposed', session_id: 'a' });
    expect(hookTrail(agent.log())).toEqual([`sessionEnd cat > ${JSON.stringify(out)} pass`]);
  });
});

describe('session hooks in a replay and in settings', () => {
  it('a replay logs the same decisions and context without running the hooks', async () => {
    let runs = 0;
    const hooks = {
      sessionStart: [() => ({ additionalContext: `run ${++runs}` })],
      sessionEnd: [
        () => {
          runs++;
          return undefined;
        },
      ],
    };
    const { agent, system } = await hookedAgent([{ text: 'hi' }], { hooks });
    await agent.run('go');
    await system.dispose();
    expect(runs).toBe(2);
    const recorded = [...agent.log()];
    const replayed = await replaySession(recorded, { setup: { tools: [echoTool()], hooks } });
    assertSameLog(recorded, replayed.events);
    expect(runs).toBe(2);
  });

  it('SessionStart and SessionEnd are accepted in settings; Notification is still refused', () => {
    const command = { hooks: [{ type: 'command', command: 'true', timeout: 5 }] };
    const parsed = hooksSettingsSchema.parse({ SessionStart: [command], SessionEnd: [command] });
    expect(commandHooksFrom(parsed)).toEqual({
      sessionStart: [{ type: 'command', command: 'true', timeoutMs: 5000 }],
      sessionEnd: [{ type: 'command', command: 'true', timeoutMs: 5000 }],
    });
    const refused = hooksSettingsSchema.safeParse({ Notification: [command] });
    expect(refused.success).toBe(false);
    expect(JSON.stringify(refused.error?.issues)).toContain(
      'Notification hooks are not run by agentchart yet',
    );
  });
});
