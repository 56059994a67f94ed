import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  assertSameLog,
  ConfigError,
  codingTools,
  createAgentSystem,
  fileStore,
  type LogEvent,
  memoryStore,
  type SessionStore,
} from '../../src/index.ts';
import { replay, SimulatedClock, scripted } from '../../src/testing.ts';
import { bigOutput, deterministicSystem, dump, readBack, resultOf, tempDir } from './long-output-support.ts';

const tools = () => [dump, codingTools().find((tool) => tool.name === 'read_file')!];

/** Runs the read-back script (recorded, or replayed from `events`) against `store`; returns the log. */
async function run(store: SessionStore, workspace: string, events?: readonly LogEvent[]) {
  const clock = new SimulatedClock(1_767_225_600_000);
  const model = events ? replay(events, { clock }) : scripted(readBack, { clock });
  const system = deterministicSystem({ model, store, cwd: workspace, tools: tools(), clock });
  const agent = await system.createAgent({ id: 'a1' });
  await agent.run('Dump it, then read the middle.');
  await system.dispose();
  return [...agent.log()];
}

/** The folders of this system's temporary saved outputs that hold `sessionId`. */
async function temporaryFolders(sessionId: string): Promise<string[]> {
  const names = await readdir(tmpdir());
  return names
    .filter((name) => name.startsWith('agentchart-outputs-'))
    .map((name) => path.join(tmpdir(), name, sessionId))
    .filter((folder) => existsSync(folder));
}

describe('long tool results and replay', () => {
  it('replays byte for byte, wherever the store keeps the saved files', async () => {
    const workspace = await tempDir('ws');
    const recorded = await run(fileStore(await tempDir('first')), workspace);
    expect(resultOf(recorded, 'c1')!.content).toContain('"path":"/agentchart-outputs/a1/1-1-c1.txt"');
    // Another folder, then no folder of the store at all: the log is the same.
    const elsewhere = await tempDir('second');
    assertSameLog(recorded, await run(fileStore(elsewhere), workspace, recorded));
    assertSameLog(recorded, await run(memoryStore(), workspace, recorded));
    expect(await readFile(path.join(elsewhere, 'a1.outputs', '1-1-c1.txt'), 'utf8')).toBe(bigOutput);
  });

  it('keeps a memory store session’s files in a temporary folder of the system, removed on dispose', async () => {
    const sessionId = `memory-${process.pid}`;
    const model = scripted([{ toolCalls: [{ id: 'c1', name: 'dump', input: {} }] }, { text: 'Seen.' }]);
    const system = createAgentSystem({ model, tools: tools(), projectInstructions: false });
    const agent = await system.createAgent({ id: sessionId });
    await agent.run('Dump it.');
    // The agent is idle, the system alive: the file is there to be read.
    const found = await temporaryFolders(sessionId);
    expect(found).toHaveLength(1);
    expect(await readFile(path.join(found[0]!, '1-1-c1.txt'), 'utf8')).toBe(bigOutput);
    await system.dispose();
    expect(await temporaryFolders(sessionId)).toEqual([]);
  });
});

describe('the toolOutput option', () => {
  it('is parsed when the system is created: a whole number of characters of at least 2000', () => {
    const model = scripted([]);
    const attempts = [{ maxChars: 1999 }, { maxChars: 2500.5 }, { maxChars: '30000' }, { max: 30_000 }, 5];
    const messages = attempts.map((toolOutput) => {
      try {
        createAgentSystem({ model, toolOutput } as never);
        return 'accepted';
      } catch (error) {
        return ConfigError.isInstance(error) ? error.message : String(error);
      }
    });
    expect(messages).toEqual([
      'createAgentSystem: toolOutput.maxChars must be a whole number of characters, at least 2000, got 1999',
      'createAgentSystem: toolOutput.maxChars must be a whole number of characters, at least 2000, got 2500.5',
      'createAgentSystem: toolOutput.maxChars must be a whole number of characters, at least 2000, got "30000"',
      'createAgentSystem: toolOutput has an unknown key "max"',
      'createAgentSystem: toolOutput must be an object, got 5',
    ]);
    expect(() => createAgentSystem({ model, toolOutput: { maxChars: 2000 } })).not.toThrow();
  });
});
