import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import { emptyUsage } from '../../src/providers/types.ts';
import {
  nextTurnNumber,
  notStartedContent,
  pendingInbox,
  repair,
  unknownOutcomeContent,
} from '../../src/session/repair.ts';
import { validateSequence } from '../../src/session/schema.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { makeEvent, sampleLog } from '../support/store-contract.ts';

const usage = (inputTokens: number, outputTokens: number) => ({ ...emptyUsage, inputTokens, outputTokens });
const t2 = { turn: 2 };
const s1 = { turn: 2, step: 1 };
const s2 = { turn: 2, step: 2 };

/** A log that crashed in step 2 of turn 2, while running the tools of its assistant message. */
function crashedLog(): LogEvent[] {
  const log = sampleLog();
  return [
    ...log,
    makeEvent(7, 'turn.start', {}, t2),
    makeEvent(8, 'step.start', { model: 'm', toolNames: ['bash'], systemHash: 'h' }, s1),
    makeEvent(
      9,
      'assistant.message',
      { text: 'x', toolCalls: [], usage: usage(3, 4), stopReason: 'end_turn' },
      s1,
    ),
    makeEvent(10, 'step.end', { toolResults: 0 }, s1),
    makeEvent(11, 'step.start', { model: 'm', toolNames: ['bash'], systemHash: 'h' }, s2),
    makeEvent(
      12,
      'assistant.message',
      {
        text: 'run three',
        toolCalls: [
          { id: 'a', name: 'bash', input: { command: 'a' } },
          { id: 'b', name: 'bash', input: { command: 'b' } },
          { id: 'c', name: 'bash', input: { command: 'c' } },
        ],
        usage: usage(10, 20),
        stopReason: 'tool_use',
      },
      s2,
    ),
    makeEvent(13, 'tool.call', { callId: 'a', name: 'bash', input: { command: 'a' } }, s2),
    makeEvent(14, 'tool.call', { callId: 'b', name: 'bash', input: { command: 'b' } }, s2),
    makeEvent(15, 'tool.started', { callId: 'a' }, s2),
    makeEvent(16, 'tool.started', { callId: 'b' }, s2),
    makeEvent(17, 'tool.result', { callId: 'b', outcome: 'ok', content: 'B' }, s2),
  ];
}

describe('repair', () => {
  it('appends nothing to a consistent log', () => {
    expect(repair(sampleLog(), new SimulatedClock(5))).toEqual({ appended: [], notes: [] });
    expect(repair([], new SimulatedClock(5))).toEqual({ appended: [], notes: [] });
  });

  it('settles every call, closes the step and the turn, in model order', () => {
    const log = crashedLog();
    const { appended, notes } = repair(log, new SimulatedClock(500));
    const at = { ts: 500 };
    expect(appended).toEqual([
      makeEvent(
        18,
        'tool.result',
        { callId: 'a', outcome: 'unknown', content: unknownOutcomeContent },
        { ...s2, ...at },
      ),
      makeEvent(19, 'tool.call', { callId: 'c', name: 'bash', input: { command: 'c' } }, { ...s2, ...at }),
      makeEvent(
        20,
        'tool.result',
        { callId: 'c', outcome: 'not_started', content: notStartedContent },
        { ...s2, ...at },
      ),
      makeEvent(21, 'step.end', { toolResults: 3 }, { ...s2, ...at }),
      makeEvent(22, 'turn.end', { reason: 'interrupted', usage: usage(13, 24) }, { ...t2, ...at }),
    ]);
    expect(notes).toEqual([
      'tool call a (bash) had no result: recorded as unknown',
      'tool call c (bash) had no result: recorded as not_started',
      'closed open step 2 of turn 2',
      'closed open turn 2 as interrupted',
    ]);
    const repaired = [...log, ...appended];
    expect(() => validateSequence(repaired)).not.toThrow();
    expect(repair(repaired, new SimulatedClock(900)).appended).toEqual([]);
  });

  it('closes a turn that crashed before its first step with empty usage', () => {
    const log = [...sampleLog(), makeEvent(7, 'turn.start', {}, t2)];
    expect(repair(log, new SimulatedClock(1)).appended).toEqual([
      makeEvent(8, 'turn.end', { reason: 'interrupted', usage: emptyUsage }, { ...t2, ts: 1 }),
    ]);
  });

  it('gives a result to a tool.call that no assistant message announced', () => {
    const log = [
      ...sampleLog(),
      makeEvent(7, 'tool.call', { callId: 'z', name: 'task', input: {} }, { turn: 1 }),
    ];
    expect(repair(log, new SimulatedClock(2)).appended).toEqual([
      makeEvent(
        8,
        'tool.result',
        { callId: 'z', outcome: 'not_started', content: notStartedContent },
        { turn: 1, ts: 2 },
      ),
    ]);
  });

  it('ignores the calls of an interrupted message, which the model never sees', () => {
    const message = {
      text: 'half',
      toolCalls: [{ id: 'h', name: 'bash', input: {} }],
      usage: emptyUsage,
      stopReason: 'interrupted' as const,
      interrupted: true,
    };
    const log = [...sampleLog(), makeEvent(7, 'assistant.message', message)];
    expect(repair(log, new SimulatedClock(0))).toEqual({ appended: [], notes: [] });
  });

  it('tells the model what happened in plain words', () => {
    expect(notStartedContent).toMatch(/never run/);
    expect(unknownOutcomeContent).toMatch(
      /Check the current state .* before trying again; never repeat it blindly/,
    );
  });
});

describe('nextTurnNumber', () => {
  it('continues after the highest turn seen, starting at 1', () => {
    expect(nextTurnNumber([])).toBe(1);
    expect(nextTurnNumber(sampleLog())).toBe(2);
    expect(nextTurnNumber(crashedLog())).toBe(3);
  });
});

describe('pendingInbox', () => {
  it('returns items neither claimed nor cleared, in queue order', () => {
    const queued = (seq: number, id: string) =>
      makeEvent(seq, 'inbox.queued', { id, channel: 'followup', message: `m-${id}` });
    const log = [
      sampleLog()[0] as LogEvent,
      queued(1, 'q1'),
      queued(2, 'q2'),
      queued(3, 'q3'),
      makeEvent(4, 'inbox.claimed', { ids: ['q1'] }),
      queued(5, 'q4'),
      makeEvent(6, 'inbox.cleared', { ids: ['q3'] }),
    ];
    expect(pendingInbox(log)).toEqual([
      { id: 'q2', channel: 'followup', message: 'm-q2', seq: 2 },
      { id: 'q4', channel: 'followup', message: 'm-q4', seq: 5 },
    ]);
  });
});
