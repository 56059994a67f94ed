// A session that used MCP tools (with a tool list change and a crash in it) re-runs byte for byte from its
// log alone: the replay provider answers as the model did, `replay: { log }` offers the recorded tools at the
// same steps and answers each call as recorded, and no server is started.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import { scripted } from '../../src/providers/scripted.ts';
import { replaySession } from '../../src/replay/replay-session.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { AgentSystemOptions } from '../../src/runtime/options.ts';
import { assertSameLog } from '../../src/session/compare-logs.ts';
import { replay } from '../../src/session/replay-provider.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { faultServer, startedPids, tempDir } from '../support/mcp-servers.ts';
import { until } from './mcp-kit.ts';

/** One agent with the same ids, clock start and workspace for the recording and its replay. */
async function session(
  options: Partial<Pick<AgentSystemOptions, 'model' | 'mcpServers' | 'replay'>> &
    Pick<AgentSystemOptions, 'model'>,
  cwd: string,
  clock: SimulatedClock,
) {
  let id = 0;
  const system = createAgentSystem({
    ...options,
    clock,
    ids: () => `id${++id}`,
    cwd,
    projectInstructions: false,
    permissionMode: 'bypass',
  });
  return { system, agent: await system.createAgent({ id: 'mcp-session' }) };
}

describe('replay of a session that used MCP tools', () => {
  it('re-runs byte for byte without starting the servers', async () => {
    const dir = await tempDir('mcp-replay');
    const logFile = join(dir, 'fault.log');
    const script = [
      {
        toolCalls: [
          { id: 'c1', name: 'mcp__fault__echo', input: { text: 'one' } },
          { id: 'c2', name: 'mcp__fault__fail', input: {} },
          { id: 'c3', name: 'mcp__fault__echo', input: { wrong: true } },
        ],
      },
      { toolCalls: [{ id: 'c4', name: 'mcp__fault__add_tool', input: { name: 'later' } }] },
      { text: 'Added a tool.' },
      { toolCalls: [{ id: 'c5', name: 'mcp__fault__later', input: {} }] },
      { toolCalls: [{ id: 'c6', name: 'mcp__fault__crash', input: {} }] },
      { text: 'It crashed.' },
    ];
    const liveClock = new SimulatedClock(5_000);
    const live = await session(
      { model: scripted(script, { clock: liveClock }), mcpServers: { fault: faultServer(logFile) } },
      dir,
      liveClock,
    );
    await live.agent.run('Use the server.');
    // The new list is applied at the next step: within this turn, or at the first step of the next.
    const changed = () => live.agent.log().some((event) => event.type === 'mcp.tools');
    await until(() => live.agent.mcpServers()[0]!.listChanged || changed(), 'the changed list');
    await live.agent.run('Use the new tool, then crash it.');
    await until(() => live.agent.log().some((event) => event.type === 'mcp.status'), 'the crash');
    await live.system.dispose();
    const recorded: LogEvent[] = (await live.system.store.load('mcp-session')).events;
    expect(recorded.map((event) => event.type)).toContain('mcp.tools');
    expect(recorded.map((event) => event.type)).toContain('mcp.status');
    expect(startedPids(logFile)).toHaveLength(1);

    const clock = new SimulatedClock(5_000);
    const again = await session(
      { model: replay(recorded, { clock }), replay: { log: recorded } },
      dir,
      clock,
    );
    await again.agent.run('Use the server.');
    await again.agent.run('Use the new tool, then crash it.');
    await again.system.dispose();
    const replayed = (await again.system.store.load('mcp-session')).events;
    assertSameLog(recorded, replayed);
    expect(replayed).toHaveLength(recorded.length);
    expect(startedPids(logFile)).toHaveLength(1);

    // The same from the log alone, as `expectReplay` and `replay --check` run it: nothing given beside it.
    const rerun = await replaySession(recorded);
    expect(rerun.stopped).toBeUndefined();
    assertSameLog(recorded, rerun.events);
    expect(startedPids(logFile)).toHaveLength(1);
  });
});
