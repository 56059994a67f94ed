import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import { computeFrames, type MachineFrame } from '../../src/inspector/time-travel.ts';
import { scripted } from '../../src/providers/scripted.ts';
import type { Agent } from '../../src/runtime/agent-handle.ts';
import type { ActorSnapshot } from '../../src/runtime/agent-view.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { AgentSystemOptions } from '../../src/runtime/options.ts';
import { parseLogText } from '../../src/session/log-text.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import { corpus } from '../hooks/claude-kit.ts';
import { fixturePath, replayClockStart, runScenario, scenarios } from '../replay/scenarios.ts';
import { faultServer, startedPids } from '../support/mcp-servers.ts';
import { installSkill, loadThenRun } from '../support/skill-kit.ts';

/** The tree without contexts: what the charts light. */
function states(node: MachineFrame | ActorSnapshot): unknown {
  return { id: node.id, value: node.value, status: node.status, children: node.children.map(states) };
}

describe.each(scenarios)('time travel on the fixture $name', (scenario) => {
  it('gives, at every seq, the states the live runtime had when that event was written', async () => {
    // The live run: the scripted model the fixture was recorded with, a snapshot after each event.
    const live: unknown[] = [];
    const clock = new SimulatedClock(replayClockStart);
    const recorded = await runScenario(scenario, scripted(scenario.script, { clock }), clock, (agent) => {
      const take = (seq: number) => {
        const { contextUsage: _usage, ...tree } = agent.snapshot();
        live[seq] = states(tree);
      };
      for (const event of agent.log()) take(event.seq);
      agent.onLog((event) => queueMicrotask(() => take(event.seq)));
    });
    const file = parseLogText(await readFile(fixturePath(scenario.name), 'utf8'), scenario.name).events;
    expect(JSON.stringify(recorded)).toBe(JSON.stringify(file));

    // Time travel on the recording: computed by re-running it, with stand-ins for its tools.
    // Nothing but the log: the compaction policy a fixture changes is recorded in its session.start.
    const { frames, note } = await computeFrames(file);
    expect(note).toBeUndefined();
    expect(frames).toHaveLength(file.length);
    let compared = 0;
    for (let seq = 0; seq < file.length; seq++) {
      expect({ seq, states: states(frames[seq]!) }).toEqual({ seq, states: live[seq] });
      compared++;
    }
    expect(compared).toBe(file.length);
  });
});

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});
const tempFolder = async (name: string) => {
  const folder = await mkdtemp(join(tmpdir(), `agentchart-travel-${name}-`));
  folders.push(folder);
  return folder;
};

/**
 * Records a session through the real runtime (real tools, hooks, servers), taking the live states once the
 * runtime has taken the step that wrote each event, as the fixture test above does.
 */
async function recordWithStates(
  options: AgentSystemOptions,
  drive: (agent: Agent) => Promise<unknown>,
): Promise<{ events: LogEvent[]; live: unknown[] }> {
  let n = 0;
  const system = createAgentSystem({ ids: () => `id${++n}`, projectInstructions: false, ...options });
  const live: unknown[] = [];
  try {
    const agent = await system.createAgent({ id: 'travel' });
    const take = (seq: number) => {
      const { contextUsage: _usage, ...tree } = agent.snapshot();
      live[seq] = states(tree);
    };
    for (const event of agent.log()) take(event.seq);
    agent.onLog((event) => queueMicrotask(() => take(event.seq)));
    await drive(agent);
    await system.dispose();
    return { events: [...agent.log()], live };
  } finally {
    await system.dispose();
  }
}

/** Time travel reaches the last seq with no note, and every frame lights what the live runtime had. */
async function expectTravelToTheEnd(events: LogEvent[], live: unknown[]): Promise<void> {
  const { frames, note } = await computeFrames(events);
  expect(note).toBeUndefined();
  expect(frames).toHaveLength(events.length);
  expect(events.at(-1)?.type).toBe('session.end');
  let compared = 0;
  for (let seq = 0; seq < events.length; seq++) {
    expect(live[seq], `the live state at seq ${seq}`).toBeDefined();
    expect({ seq, states: states(frames[seq]!) }).toEqual({ seq, states: live[seq] });
    compared++;
  }
  expect(compared).toBe(events.length);
}

const types = (events: readonly LogEvent[], type: string) => events.filter((event) => event.type === type);

describe('time travel on sessions users record', () => {
  it('a headless run: the write denied by:headless, nobody asked', async () => {
    const cwd = await tempFolder('headless');
    const { events, live } = await recordWithStates(
      {
        model: scripted([
          { toolCalls: [{ id: 'c1', name: 'write_file', input: { path: 'note.txt', content: 'milk\n' } }] },
          { text: 'I could not write the note.' },
        ]),
        tools: codingTools(),
        cwd,
        approve: 'deny',
      },
      (agent) => agent.run('leave a note'),
    );
    expect(types(events, 'approval.decided').map((event) => [event.data.outcome, event.data.by])).toEqual([
      ['deny', 'headless'],
    ]);
    expect(types(events, 'approval.asked')).toEqual([]);
    await expectTravelToTheEnd(events, live);
  });

  it('skill tool calls: the real webapp-testing skill loaded, its script run through bash', async () => {
    const workspace = await tempFolder('skills');
    const skills = join(workspace, '.claude', 'skills');
    await installSkill(skills);
    const { events, live } = await recordWithStates(
      {
        model: scripted(loadThenRun),
        tools: codingTools(),
        cwd: workspace,
        permissionMode: 'bypass',
        skills: { folders: [skills] },
      },
      (agent) => agent.run('How do I test my web app with a dev server?'),
    );
    expect(types(events, 'tool.call').map((event) => event.data.name)).toEqual([
      'skill',
      'bash',
      'bash',
      'bash',
      'read_file',
    ]);
    await expectTravelToTheEnd(events, live);
  });

  it('MCP tools: answered from the recording, the server not started again', async () => {
    const folder = await tempFolder('mcp');
    const serverLog = join(folder, 'fault.log');
    const { events, live } = await recordWithStates(
      {
        model: scripted([
          {
            toolCalls: [
              { id: 'c1', name: 'mcp__fault__echo', input: { text: 'one' } },
              { id: 'c2', name: 'mcp__fault__fail', input: {} },
            ],
          },
          { text: 'Echoed, and one failed.' },
        ]),
        cwd: folder,
        permissionMode: 'bypass',
        mcpServers: { fault: faultServer(serverLog) },
      },
      (agent) => agent.run('Use the server.'),
    );
    expect(types(events, 'tool.result').map((event) => [event.data.callId, event.data.outcome])).toEqual([
      ['c1', 'ok'],
      ['c2', 'error'],
    ]);
    expect(startedPids(serverLog)).toHaveLength(1);
    await expectTravelToTheEnd(events, live);
    expect(startedPids(serverLog)).toHaveLength(1);
  });

  it("hooks: Claude Code's bash_command_validator_example.py blocks a grep, lets an echo run", async () => {
    const workspace = await tempFolder('hooks');
    const validator = join(
      corpus,
      'anthropics__claude-code/examples/hooks/bash_command_validator_example.py',
    );
    const settings = {
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `python3 ${validator}` }] }],
      },
    };
    await writeFile(join(workspace, 'team.json'), JSON.stringify(settings));
    const bash = (id: string, command: string) => ({ toolCalls: [{ id, name: 'bash', input: { command } }] });
    const { events, live } = await recordWithStates(
      {
        model: scripted([bash('c1', 'grep -r foo .'), bash('c2', 'echo ran'), { text: 'done' }]),
        tools: codingTools(),
        cwd: workspace,
        permissionMode: 'bypass',
        settings: 'team.json',
      },
      (agent) => agent.run('go'),
    );
    expect(types(events, 'hook.decided').map((event) => [event.data.callId, event.data.outcome])).toEqual([
      ['c1', 'deny'],
      ['c2', 'pass'],
    ]);
    await expectTravelToTheEnd(events, live);
  });
});
