import { describe, expect, it } from 'vitest';
import { emptyUsage, type ToolSpec } from '../../src/providers/types.ts';
import { project } from '../../src/session/projection.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { makeEvent } from '../support/store-contract.ts';

const tools: ToolSpec[] = [{ name: 'read_file', description: 'Read.', inputSchema: { type: 'object' } }];
const options = { system: 'You are terse.', tools };
const call = (id: string, name = 'read_file') => ({ id, name, input: { path: `${id}.ts` } });
const assistant = (seq: number, text: string, toolCalls = [] as ReturnType<typeof call>[], extra = {}) =>
  makeEvent(seq, 'assistant.message', {
    text,
    toolCalls,
    usage: emptyUsage,
    stopReason: toolCalls.length ? 'tool_use' : 'end_turn',
    ...extra,
  });
const result = (seq: number, callId: string, content: string, outcome: 'ok' | 'error' | 'denied' = 'ok') =>
  makeEvent(seq, 'tool.result', { callId, outcome, content });
const user = (seq: number, content: string, channel: 'followup' | 'steer' | 'inject' = 'followup') =>
  makeEvent(seq, 'user.message', { channel, content });
const start = makeEvent(0, 'session.start', { agentId: 'a', config: {} });

describe('project', () => {
  it('returns the system prompt and tools with no messages for an empty session', () => {
    expect(project([start], options)).toEqual({ system: 'You are terse.', tools, messages: [] });
  });

  it('places tool results after their assistant message in tool-call order', () => {
    const log: LogEvent[] = [
      start,
      makeEvent(1, 'turn.start', {}, { turn: 1 }),
      user(2, 'read both'),
      makeEvent(3, 'step.start', { model: 'm', toolNames: ['read_file'], systemHash: 'h' }),
      assistant(4, 'Reading.', [call('c1'), call('c2', 'grep')]),
      makeEvent(5, 'tool.call', { callId: 'c1', name: 'read_file', input: { path: 'c1.ts' } }),
      makeEvent(6, 'tool.call', { callId: 'c2', name: 'grep', input: { path: 'c2.ts' } }),
      makeEvent(7, 'tool.started', { callId: 'c2' }),
      makeEvent(8, 'approval.asked', { callId: 'c1' }),
      result(9, 'c2', 'two', 'error'),
      result(10, 'c1', 'one'),
      makeEvent(11, 'step.end', { toolResults: 2 }),
      assistant(12, 'Done.'),
    ];
    expect(project(log, options).messages).toEqual([
      { role: 'user', content: 'read both' },
      { role: 'assistant', text: 'Reading.', toolCalls: [call('c1'), call('c2', 'grep')] },
      { role: 'tool', callId: 'c1', name: 'read_file', content: 'one', isError: false },
      { role: 'tool', callId: 'c2', name: 'grep', content: 'two', isError: true },
      { role: 'assistant', text: 'Done.', toolCalls: [] },
    ]);
  });

  it('marks every outcome but ok as an error and takes the name from tool.call', () => {
    const log = [
      start,
      assistant(1, '', [call('c1')]),
      makeEvent(2, 'tool.call', { callId: 'c1', name: 'renamed', input: {} }),
      result(3, 'c1', 'no', 'denied'),
    ];
    expect(project(log, options).messages).toEqual([
      { role: 'assistant', text: '', toolCalls: [call('c1')] },
      { role: 'tool', callId: 'c1', name: 'renamed', content: 'no', isError: true },
    ]);
  });

  it('gives a call with no result yet no message, and drops a result that matches no call', () => {
    const log = [
      start,
      assistant(1, 'a', [call('c1'), call('c2')]),
      result(2, 'c2', 'two'),
      result(3, 'zz', 'x'),
    ];
    expect(project(log, options).messages).toEqual([
      { role: 'assistant', text: 'a', toolCalls: [call('c1'), call('c2')] },
      { role: 'tool', callId: 'c2', name: 'read_file', content: 'two', isError: false },
    ]);
  });

  it('keeps the text of an interrupted message and drops its tool calls', () => {
    const log = [start, assistant(1, 'half', [call('c1')], { interrupted: true, stopReason: 'interrupted' })];
    expect(project(log, options).messages).toEqual([{ role: 'assistant', text: 'half', toolCalls: [] }]);
  });

  it('passes provider parts through', () => {
    const parts = [{ provider: 'anthropic', type: 'thinking', data: { thinking: 'hm', signature: 'sig' } }];
    const log = [start, assistant(1, 'x', [], { providerParts: parts })];
    expect(project(log, options).messages).toEqual([
      { role: 'assistant', text: 'x', toolCalls: [], providerParts: parts },
    ]);
  });

  it('keeps consecutive user messages separate, whatever their channel', () => {
    const log = [
      start,
      makeEvent(1, 'inbox.queued', { id: 'q', channel: 'steer', message: 'b' }),
      user(2, 'a', 'followup'),
      user(3, 'b', 'steer'),
      user(4, 'c', 'inject'),
      makeEvent(5, 'inbox.claimed', { ids: ['q'] }),
    ];
    expect(project(log, options).messages).toEqual([
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
      { role: 'user', content: 'c' },
    ]);
  });

  it('attaches a result to the latest assistant message that used its call id', () => {
    const log = [
      start,
      assistant(1, 'one', [call('c1')]),
      result(2, 'c1', 'first'),
      assistant(3, 'two', [call('c1')]),
      result(4, 'c1', 'second'),
    ];
    expect(project(log, options).messages).toEqual([
      { role: 'assistant', text: 'one', toolCalls: [call('c1')] },
      { role: 'tool', callId: 'c1', name: 'read_file', content: 'first', isError: false },
      { role: 'assistant', text: 'two', toolCalls: [call('c1')] },
      { role: 'tool', callId: 'c1', name: 'read_file', content: 'second', isError: false },
    ]);
  });

  it('replaces a compacted range by one summary message where the range started', () => {
    const log = [
      start,
      user(1, 'old question'),
      assistant(2, 'old answer'),
      user(3, 'newer question'),
      makeEvent(4, 'compaction', {
        replaces: [1, 2],
        summary: 'They asked; we answered.',
        tokensBefore: 1000,
        trigger: 'auto',
      }),
      assistant(5, 'newer answer'),
    ];
    expect(project(log, options).messages).toEqual([
      { role: 'user', content: '[Summary of earlier conversation]\nThey asked; we answered.' },
      { role: 'user', content: 'newer question' },
      { role: 'assistant', text: 'newer answer', toolCalls: [] },
    ]);
  });

  it('lets a later compaction supersede one inside its range', () => {
    const log = [
      start,
      user(1, 'a'),
      assistant(2, 'b'),
      makeEvent(3, 'compaction', { replaces: [1, 2], summary: 'S1', tokensBefore: 1000, trigger: 'auto' }),
      user(4, 'c'),
      assistant(5, 'd'),
      makeEvent(6, 'compaction', { replaces: [1, 5], summary: 'S2', tokensBefore: 1000, trigger: 'auto' }),
      user(7, 'e'),
      makeEvent(8, 'compaction', { replaces: [7, 7], summary: 'S3', tokensBefore: 1000, trigger: 'auto' }),
    ];
    expect(project(log, options).messages).toEqual([
      { role: 'user', content: '[Summary of earlier conversation]\nS2' },
      { role: 'user', content: '[Summary of earlier conversation]\nS3' },
    ]);
  });

  it('lets a later compaction supersede one whose whole range it holds, wherever that one was logged', () => {
    const log = [
      start,
      user(1, 'a'),
      assistant(2, 'b'),
      user(3, 'c'),
      makeEvent(4, 'compaction', { replaces: [1, 2], summary: 'S1', tokensBefore: 1000, trigger: 'auto' }),
      assistant(5, 'd'),
      makeEvent(6, 'compaction', { replaces: [1, 3], summary: 'S2', tokensBefore: 1000, trigger: 'manual' }),
    ];
    expect(project(log, options).messages).toEqual([
      { role: 'user', content: '[Summary of earlier conversation]\nS2' },
      { role: 'assistant', text: 'd', toolCalls: [] },
    ]);
  });

  it('does not mutate its input and is deterministic', () => {
    const log = [start, assistant(1, 'a', [call('c1')]), result(2, 'c1', 'r')];
    const copy = structuredClone(log);
    const first = project(log, options);
    expect(project(log, options)).toEqual(first);
    expect(log).toEqual(copy);
  });
});
