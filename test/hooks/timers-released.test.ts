// Time limits end with the work they bound. A hook's limit, the sessionEnd limit and a bash command's
// timeout are real timers; left running, each keeps its timer and what its signal reaches alive for the
// whole limit after the work is over (10 s per disposed agent for sessionEnd: ~10 KB an agent, measured by
// `npm run bench`'s retained-bytes row). Counted here as the timers created and not yet cleared or fired
// (async_hooks sees unref'd timers too, which the process's active-resource list leaves out).
import { createHook } from 'node:async_hooks';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashTool } from '../../src/tools/bash.ts';
import { echoCall, hookedAgent } from './hook-kit.ts';

const dir = mkdtempSync(join(tmpdir(), 'agentchart-timers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const timers = new Set<number>();
const tracking = createHook({
  init: (id, type) => {
    if (type === 'Timeout') timers.add(id);
  },
  destroy: (id) => {
    timers.delete(id);
  },
});
beforeAll(() => {
  tracking.enable();
});
afterAll(() => {
  tracking.disable();
});
const liveTimers = () => timers.size;

/** Runs `rounds` agents through one tool call each and disposes them; returns how many timers were added. */
async function timersLeft(rounds: number, run: () => Promise<void>): Promise<number> {
  await run(); // lazily started process-wide timers are not the agents'
  const before = liveTimers();
  for (let i = 0; i < rounds; i++) await run();
  return liveTimers() - before;
}

describe('time limits are released when their work ends', () => {
  it('in-process hooks at preTool, postTool and sessionEnd, over 20 agents', async () => {
    const added = await timersLeft(20, async () => {
      const { system, agent } = await hookedAgent([{ toolCalls: [echoCall('c1', 'hi')] }, { text: 'done' }], {
        hooks: {
          preTool: [{ name: 'allow', timeoutMs: 60_000, run: () => ({ decision: 'allow' }) }],
          postTool: [() => undefined],
          sessionEnd: [{ name: 'bye', timeoutMs: 60_000, run: () => undefined }],
        },
      });
      const result = await agent.run('go');
      expect(result.reason).toBe('completed');
      await agent.dispose();
      await system.dispose();
    });
    expect(added).toBeLessThanOrEqual(0);
  });

  it('a command hook and a bash command, over 5 agents', async () => {
    const file = join(dir, 'allow.mjs');
    writeFileSync(file, "process.stdout.write('{}');\n");
    const added = await timersLeft(5, async () => {
      const { system, agent } = await hookedAgent(
        [{ toolCalls: [{ id: 'b1', name: 'bash', input: { command: 'true' } }] }, { text: 'done' }],
        {
          cwd: dir,
          tools: [bashTool()],
          hooks: { preTool: [{ type: 'command', command: `node ${file}`, timeoutMs: 60_000 }] },
        },
      );
      const result = await agent.run('go');
      expect(result.reason).toBe('completed');
      await agent.dispose();
      await system.dispose();
    });
    expect(added).toBeLessThanOrEqual(0);
  });
});
