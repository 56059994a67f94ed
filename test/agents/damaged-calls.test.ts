// A log whose tool results do not pair with its calls — a result for a call never made, or two results
// for one call — is damage no crash leaves behind. Every reader refuses it with the same LogFormatError
// naming the event: resumeAgent and forkAgent (which used to repair around it), the stores' load, the
// recording readers of replay and inspect, and expectReplay. A log cut short by a crash still resumes.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LogFormatError } from '../../src/errors/log-format-error.ts';
import { loadRecording } from '../../src/inspector/recorded-source.ts';
import { scripted } from '../../src/providers/scripted.ts';
import { emptyUsage } from '../../src/providers/types.ts';
import { expectReplay, readRecording } from '../../src/replay/expect-replay.ts';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { memoryStore } from '../../src/session/memory-store.ts';
import { formatLogLine } from '../../src/session/schema.ts';
import type { LogEvent, SessionStore } from '../../src/session/types.ts';
import { makeEvent } from '../support/store-contract.ts';

/** One turn whose step called `echo` as c1 and got its result; `extra` goes right after that result. */
function turnWith(extra: LogEvent[]): LogEvent[] {
  const at = { turn: 1, step: 1 };
  const head = [
    makeEvent(0, 'session.start', { agentId: 's', config: { model: 'scripted' } }),
    makeEvent(1, 'turn.start', {}, { turn: 1 }),
    makeEvent(2, 'user.message', { channel: 'followup', content: 'go' }, { turn: 1 }),
    makeEvent(3, 'step.start', { model: 'scripted', toolNames: ['echo'], systemHash: 'h' }, at),
    makeEvent(
      4,
      'assistant.message',
      {
        text: '',
        toolCalls: [{ id: 'c1', name: 'echo', input: {} }],
        usage: emptyUsage,
        stopReason: 'tool_use',
      },
      at,
    ),
    makeEvent(5, 'tool.call', { callId: 'c1', name: 'echo', input: {} }, at),
    makeEvent(6, 'tool.started', { callId: 'c1' }, at),
    makeEvent(7, 'tool.result', { callId: 'c1', outcome: 'ok', content: 'echo' }, at),
  ];
  const tail = [
    makeEvent(0, 'step.end', { toolResults: 1 + extra.length }, at),
    makeEvent(0, 'turn.end', { reason: 'completed', usage: emptyUsage }, { turn: 1 }),
  ];
  return [...head, ...extra, ...tail].map((event, seq) => ({ ...event, seq }));
}

const result = (callId: string) =>
  makeEvent(8, 'tool.result', { callId, outcome: 'ok', content: 'x' }, { turn: 1, step: 1 });

const damaged = [
  {
    name: 'a result for a call never made',
    extra: [result('ghost')],
    problem: 'event 8 ("tool.result"): a result for call "ghost", which no earlier event made',
  },
  {
    name: 'two results for one call',
    extra: [result('c1')],
    problem: 'event 8 ("tool.result"): a second result for call "c1" (its first is event 7)',
  },
];

const systems: AgentSystem[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(systems.splice(0).map((system) => system.dispose()));
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

function systemOn(store: SessionStore): AgentSystem {
  const system = createAgentSystem({
    model: scripted([]),
    store,
    projectInstructions: false,
    permissionMode: 'bypass',
  });
  systems.push(system);
  return system;
}

async function storeWith(events: LogEvent[]): Promise<SessionStore> {
  const store = memoryStore();
  await store.create('s');
  await store.append('s', events);
  return store;
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(LogFormatError.isInstance(error)).toBe(true);
  return (error as LogFormatError).message;
}

describe('a log whose results do not pair with its calls', () => {
  for (const { name, extra, problem } of damaged) {
    it(`${name}: resume, fork, load, replay and inspect all refuse it with the same message`, async () => {
      const events = turnWith(extra);
      const store = await storeWith(events);
      const system = systemOn(store);
      expect(await refusal(system.resumeAgent('s'))).toBe(`cannot resume session "s": ${problem}`);
      expect(await refusal(system.forkAgent('s'))).toBe(`cannot fork session "s": ${problem}`);
      expect(await refusal(store.load('s'))).toBe(problem);
      // Nothing was appended to the damaged log, and nothing was created.
      expect(await store.list()).toEqual(['s']);
      const dir = await mkdtemp(join(tmpdir(), 'agentchart-damaged-'));
      dirs.push(dir);
      const file = join(dir, 's.jsonl');
      await writeFile(file, events.map(formatLogLine).join(''));
      expect(await refusal(readRecording(file))).toBe(`${file}: ${problem}`);
      expect(await refusal(expectReplay(file))).toBe(`${file}: ${problem}`);
      expect(await refusal(expectReplay(events))).toBe(problem);
      expect(await refusal(loadRecording(file))).toBe(`${file}: ${problem}`);
    });
  }

  it('a log cut short after a call started still resumes: the call gets unknown, the turn ends interrupted', async () => {
    const events = turnWith([]).slice(0, 7);
    const store = await storeWith(events);
    const agent = await systemOn(store).resumeAgent('s');
    expect(
      agent
        .log()
        .slice(7)
        .map((event) => [
          event.type,
          (event.data as { outcome?: string; reason?: string }).outcome ??
            (event.data as { reason?: string }).reason,
        ]),
    ).toEqual([
      // What the resumed process runs with comes first, then the repair of what the crash left open.
      ['session.resumed', undefined],
      ['tool.result', 'unknown'],
      ['step.end', undefined],
      ['turn.end', 'interrupted'],
    ]);
  });
});
