import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/config-error.ts';
import { LogFormatError } from '../../src/errors/log-format-error.ts';
import type { ModelRequest } from '../../src/providers/types.ts';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { AgentSystemOptions } from '../../src/runtime/options.ts';
import { fileStore } from '../../src/session/file-store.ts';
import { memoryStore } from '../../src/session/memory-store.ts';
import type { LogEvent, SessionStore } from '../../src/session/types.ts';
import { GateTool } from '../support/controllable.ts';
import {
  assertCallsPaired,
  counterIds,
  routedModel,
  tickingClock,
  turnStarts,
  until,
} from '../support/crash-kit.ts';

/** Answers every request with the last user message, so each turn's answer names its input. */
const echoModel = () =>
  routedModel({}, (request: ModelRequest) => {
    const users = request.messages.filter((m) => m.role === 'user');
    return { text: `answer to ${users.map((m) => (m.role === 'user' ? m.content : '')).join(' + ')}` };
  });

const systems: AgentSystem[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(systems.splice(0).map((s) => s.dispose()));
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

function makeSystem(store: SessionStore, options: Partial<AgentSystemOptions> = {}): AgentSystem {
  const system = createAgentSystem({
    model: echoModel(),
    store,
    ids: counterIds(`s${systems.length}-`),
    clock: tickingClock(),
    projectInstructions: false,
    permissionMode: 'bypass',
    ...options,
  });
  systems.push(system);
  return system;
}

const userMessages = (events: readonly LogEvent[], turn: number) =>
  events.filter((e) => e.type === 'user.message' && e.turn === turn).map((e) => e.data.content);

describe('resume', () => {
  it('resumes twice: turn numbering continues and every life answers its own input', async () => {
    const store = memoryStore();
    const first = await makeSystem(store).createAgent({ id: 'a' });
    expect(await first.run('one')).toMatchObject({ turn: 1, text: 'answer to one' });
    await first.dispose();
    const second = await makeSystem(store).resumeAgent('a');
    expect(await second.run('two')).toMatchObject({ turn: 2, text: 'answer to one + two' });
    await second.dispose();
    const third = await makeSystem(store).resumeAgent('a');
    expect(await third.run('three')).toMatchObject({ turn: 3, text: 'answer to one + two + three' });
    await third.dispose();
    const { events } = await store.load('a');
    expect(turnStarts(events)).toEqual([1, 2, 3]);
    expect(events.filter((e) => e.type === 'session.end')).toHaveLength(3);
    expect(events.filter((e) => e.type === 'session.start')).toHaveLength(1);
  });

  it('gives back queued input that was never claimed: a follow-up wakes the agent, an inject waits', async () => {
    const store = memoryStore();
    const gate = new GateTool('wait');
    const model = routedModel({ first: [{ toolCalls: [{ name: 'wait', input: { value: 'x' } }] }] }, () => ({
      text: 'done',
    }));
    const agent = await makeSystem(store, { model, tools: [gate.tool] }).createAgent({ id: 'a' });
    const run = agent.run('first');
    await until(() => gate.running.size === 1, 'the tool to run');
    agent.followup('second');
    await agent.dispose();
    expect(await run).toMatchObject({ reason: 'canceled', turn: 1 });

    const resumed = await makeSystem(store).resumeAgent('a');
    await resumed.whenIdle();
    // The follow-up queued before the dispose woke the resumed agent and got turn 2.
    expect(turnStarts(resumed.log())).toEqual([1, 2]);
    expect(userMessages(resumed.log(), 2)).toEqual(['second']);
    resumed.inject('a note for later');
    await resumed.dispose();

    const again = await makeSystem(store).resumeAgent('a');
    await again.whenIdle();
    expect(turnStarts(again.log())).toEqual([1, 2]); // an inject does not wake the agent
    const result = await again.run('third');
    expect(result.turn).toBe(3);
    expect(userMessages(again.log(), 3)).toEqual(['third', 'a note for later']);
    assertCallsPaired(again.log());
  });

  it('allows one live owner per session: a second resume fails with a ConfigError', async () => {
    const store = memoryStore();
    const system = makeSystem(store);
    const agent = await system.createAgent({ id: 'a' });
    await agent.run('one');
    await expect(system.resumeAgent('a')).rejects.toThrow(ConfigError);
    await agent.dispose();

    const live = await system.resumeAgent('a');
    await expect(system.resumeAgent('a')).rejects.toThrow(/already has a live agent/);
    await live.dispose();
    // Two resumes racing: exactly one wins, the other is refused and leaves nothing behind.
    const raced = await Promise.allSettled([system.resumeAgent('a'), system.resumeAgent('a')]);
    expect(raced.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const loser = raced.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(loser.reason).toBeInstanceOf(ConfigError);
    expect(system.list()).toHaveLength(1);
    expect(await system.list()[0]!.run('two')).toMatchObject({ turn: 2 });
  });

  it('refuses a log written by a newer format version with a LogFormatError', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentchart-resume-'));
    dirs.push(dir);
    const agent = await makeSystem(fileStore(dir)).createAgent({ id: 'a' });
    await agent.run('one');
    await agent.dispose();
    const file = join(dir, 'a.jsonl');
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines[3] = lines[3]!.replace('"v":1', '"v":2');
    await writeFile(file, lines.join('\n'));
    const system = makeSystem(fileStore(dir));
    await expect(system.resumeAgent('a')).rejects.toThrow(
      new LogFormatError(
        `cannot resume session "a": ${file}: line 4: written by a newer agentchart (format v2); ` +
          'this build reads up to v1',
      ),
    );
    await expect(system.resumeAgent('a')).rejects.toBeInstanceOf(LogFormatError);
    await expect(system.forkAgent('a')).rejects.toThrow(`cannot fork session "a": ${file}: line 4`);
    expect(system.list()).toEqual([]);
  });
});

describe('fork', () => {
  async function twoTurns() {
    const store = memoryStore();
    const system = makeSystem(store);
    const source = await system.createAgent({ id: 'src' });
    await source.run('one');
    await source.run('two');
    await source.dispose();
    return { store, system, before: (await store.load('src')).events };
  }

  it('forks at a turn boundary: lineage recorded, prefix copied, numbering continues, original untouched', async () => {
    const { store, system, before } = await twoTurns();
    const firstEnd = before.find((e) => e.type === 'turn.end')!;
    const fork = await system.forkAgent('src', { id: 'fork', atSeq: firstEnd.seq });
    expect(fork.log()[0]?.data).toMatchObject({
      agentId: 'fork',
      forkOf: { sessionId: 'src', atSeq: firstEnd.seq },
    });
    expect(
      fork
        .log()
        .slice(1)
        .map((e) => [e.seq, e.type]),
    ).toEqual(before.slice(1, firstEnd.seq + 1).map((e) => [e.seq, e.type]));
    // The fork sees turn 1 only, and its own next turn is number 2.
    expect(await fork.run('other two')).toMatchObject({ turn: 2, text: 'answer to one + other two' });
    await fork.dispose();
    expect((await store.load('src')).events).toEqual(before);
    expect((await store.list()).sort()).toEqual(['fork', 'src']);
  });

  it('forks by default at the last boundary, and of a fork', async () => {
    const { system, before } = await twoTurns();
    const fork = await system.forkAgent('src', { id: 'fork' });
    const lastEnd = before.filter((e) => e.type === 'turn.end').at(-1)!;
    expect(fork.log()[0]?.data.forkOf).toEqual({ sessionId: 'src', atSeq: lastEnd.seq });
    expect(await fork.run('three')).toMatchObject({ turn: 3, text: 'answer to one + two + three' });
    await fork.dispose();
    const forkOfFork = await system.forkAgent('fork', { id: 'fork2' });
    expect(await forkOfFork.run('four')).toMatchObject({
      turn: 4,
      text: 'answer to one + two + three + four',
    });
  });

  it('refuses a fork off a turn boundary, naming the nearest boundaries, and creates nothing', async () => {
    const { store, system, before } = await twoTurns();
    const ends = before.filter((e) => e.type === 'turn.end').map((e) => e.seq);
    const midTurn = ends[0]! + 2;
    await expect(system.forkAgent('src', { id: 'bad', atSeq: midTurn })).rejects.toThrow(
      new ConfigError(
        `cannot fork session "src" at seq ${midTurn}: it is not a turn boundary ` +
          `(nearest boundaries: ${ends[0]} before, ${ends[1]} after)`,
      ),
    );
    await expect(system.forkAgent('src', { id: 'bad', atSeq: 10_000 })).rejects.toThrow(ConfigError);
    expect((await store.list()).sort()).toEqual(['src']);
    expect(system.list()).toEqual([]);
  });
});
