// resumePoint: the resumable position a log ends in, read from the one projection (LogPosition) that the
// inspector shows too. Logs come from a real agent stopped at each position.
import { describe, expect, it } from 'vitest';
import { recordedState } from '../../src/inspector/log-view.ts';
import { RecordedSource } from '../../src/inspector/recorded-source.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { memoryStore } from '../../src/session/memory-store.ts';
import { questionsOf, resumePoint } from '../../src/session/resume-point.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import { counterIds, echoTool, routedModel, tickingClock, until } from '../support/crash-kit.ts';

const write = { id: 'w1', name: 'write_file', input: { path: 'x.txt', content: 'x' } };
const echo = { id: 'e1', name: 'echo', input: { text: 'e' } };

/** The log of an agent that answered `echo`, then waits for approval of `write_file`. */
async function waitingLog(): Promise<LogEvent[]> {
  const system = createAgentSystem({
    model: routedModel({ go: [{ text: 'Both.', toolCalls: [echo, write] }] }),
    tools: [echoTool, ...codingTools()],
    store: memoryStore(),
    ids: counterIds('p'),
    clock: tickingClock(),
    projectInstructions: false,
    permissionMode: 'default',
    approve: 'manual',
  });
  const agent = await system.createAgent({ id: 'p' });
  agent.run('go').catch(() => undefined);
  await until(() => agent.pendingApprovals().length === 1, 'the question');
  const events = structuredClone([...agent.log()]);
  await system.dispose();
  return events;
}

describe('resumePoint', () => {
  it('a batch waiting for approval: continued, with finished calls kept and the question pending', async () => {
    const events = await waitingLog();
    const point = resumePoint(events);
    expect(point).toMatchObject({
      kind: 'waiting',
      turn: 1,
      step: 1,
      questions: [{ callId: 'w1', name: 'write_file', input: write.input }],
      children: [],
      calls: [
        { callId: 'e1', state: 'done', outcome: 'ok' },
        { callId: 'w1', state: 'open' },
      ],
    });
    if (point.kind !== 'waiting') throw new Error('not waiting');
    expect(questionsOf(point, 'p')).toEqual([
      { callId: 'w1', name: 'write_file', input: write.input, sessionId: 'p' },
    ]);
    expect(recordedState(events, point)).toBe(
      'ready.running (waiting for approval of write_file w1; resume continues here)',
    );
    const [view] = new RecordedSource([{ sessionId: 'p', events }], 'r').agents().agents;
    expect(view?.state).toBe('ready.running (waiting for approval of write_file w1; resume continues here)');
    expect(
      view?.turns
        .at(-1)
        ?.steps.at(-1)
        ?.calls.map((call) => [call.callId, call.state]),
    ).toEqual([
      ['e1', 'done'],
      ['w1', 'awaiting_approval'],
    ]);
  });

  it('a decision logged ends the wait: the call is in flight then, and its outcome lost (repair)', async () => {
    const events = await waitingLog();
    const last = events.at(-1)!;
    const at = { v: last.v, turn: 1, step: 1 };
    const decided = [
      {
        ...at,
        seq: last.seq + 1,
        ts: 1,
        type: 'approval.decided',
        data: { callId: 'w1', outcome: 'allow', by: 'user' },
      },
      { ...at, seq: last.seq + 2, ts: 2, type: 'tool.started', data: { callId: 'w1' } },
    ] as LogEvent[];
    expect(resumePoint([...events, ...decided])).toEqual({ kind: 'repair' });
  });

  it('a log cut before the answer is repaired; a log without an open turn is idle', async () => {
    const events = await waitingLog();
    const beforeAnswer = events.slice(
      0,
      events.findIndex((event) => event.type === 'assistant.message'),
    );
    expect(resumePoint(beforeAnswer)).toEqual({ kind: 'repair' });
    const beforeTurn = events.slice(
      0,
      events.findIndex((event) => event.type === 'turn.start'),
    );
    expect(resumePoint(beforeTurn)).toEqual({ kind: 'idle' });
    // An answer whose calls are not all logged yet cannot be continued either.
    const halfLogged = events.slice(0, events.findIndex((event) => event.type === 'tool.call') + 1);
    expect(resumePoint(halfLogged)).toEqual({ kind: 'repair' });
  });
});
