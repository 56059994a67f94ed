import { describe, expect, it } from 'vitest';
import { LogFormatError } from '../../src/errors/log-format-error.ts';
import { emptyUsage } from '../../src/providers/types.ts';
import { logEventDataSchemas } from '../../src/session/event-data-schemas.ts';
import { formatLogLine, migrate, parseLogLine, validateSequence } from '../../src/session/schema.ts';
import { LOG_FORMAT_VERSION, type LogEvent, type LogEventType } from '../../src/session/types.ts';
import { makeEvent, sampleLog } from '../support/store-contract.ts';

const errorData = { kind: 'rate_limit', message: '429', retryable: true, retryAfterMs: 10 } as const;

// One valid sample per event type; the `Record` type makes the compiler demand every type.
const samples: Record<LogEventType, LogEvent> = {
  'session.start': makeEvent(0, 'session.start', {
    agentId: 'a',
    parent: 'p',
    forkOf: { sessionId: 's', atSeq: 4 },
    config: { model: 'm' },
  }),
  'inbox.queued': makeEvent(1, 'inbox.queued', { id: 'q1', channel: 'steer', message: 'go' }),
  'inbox.claimed': makeEvent(2, 'inbox.claimed', { ids: ['q1'] }),
  'inbox.cleared': makeEvent(3, 'inbox.cleared', { ids: [] }),
  'turn.start': makeEvent(4, 'turn.start', {}, { turn: 1 }),
  'step.start': makeEvent(
    5,
    'step.start',
    { model: 'm', toolNames: ['bash'], systemHash: 'x' },
    { turn: 1, step: 1 },
  ),
  'user.message': makeEvent(6, 'user.message', { channel: 'followup', content: 'hi', inboxId: 'q1' }),
  'assistant.message': makeEvent(7, 'assistant.message', {
    text: 't',
    toolCalls: [{ id: 'c1', name: 'bash', input: { command: 'ls' } }],
    usage: emptyUsage,
    stopReason: 'interrupted',
    interrupted: true,
    providerParts: [{ provider: 'anthropic', type: 'thinking', data: { signature: 's' } }],
  }),
  'assistant.attempt': makeEvent(8, 'assistant.attempt', { error: errorData, attempt: 1, retryInMs: 10 }),
  'tool.call': makeEvent(9, 'tool.call', { callId: 'c1', name: 'bash', input: null }),
  'tool.started': makeEvent(10, 'tool.started', { callId: 'c1' }),
  'approval.asked': makeEvent(11, 'approval.asked', { callId: 'c1' }),
  'approval.decided': makeEvent(12, 'approval.decided', { callId: 'c1', outcome: 'deny', by: 'headless' }),
  'tool.result': makeEvent(13, 'tool.result', { callId: 'c1', outcome: 'denied', content: 'no', error: 'e' }),
  'step.end': makeEvent(14, 'step.end', { toolResults: 1 }),
  'output.checked': makeEvent(
    26,
    'output.checked',
    { valid: false, attempt: 1, error: 'the answer is not JSON' },
    { turn: 1, step: 1 },
  ),
  'turn.end': makeEvent(15, 'turn.end', {
    reason: 'model_error',
    usage: emptyUsage,
    cause: 'user',
    error: errorData,
  }),
  compaction: makeEvent(16, 'compaction', {
    replaces: [1, 9],
    summary: 's',
    tokensBefore: 1000,
    trigger: 'auto',
  }),
  'agent.spawned': makeEvent(17, 'agent.spawned', { childSessionId: 'child', callId: 'c1' }),
  'agent.restarted': makeEvent(27, 'agent.restarted', {
    childSessionId: 'child',
    attempt: 1,
    reason: 'model_error',
    error: 'overloaded',
    backoffMs: 1000,
  }),
  'session.restarted': makeEvent(28, 'session.restarted', { attempt: 1, reason: 'crashed' }),
  'message.sent': makeEvent(
    26,
    'message.sent',
    { id: 'm1', to: 'child', text: 'Done.', kind: 'result', reason: 'completed' },
    { turn: 1 },
  ),
  'mcp.status': makeEvent(18, 'mcp.status', { server: 'github', state: 'disconnected', error: 'exit 1' }),
  'mcp.tools': makeEvent(19, 'mcp.tools', {
    server: 'github',
    tools: [
      {
        name: 'mcp__github__get_issue',
        tool: 'get_issue',
        description: 'Reads an issue.',
        inputSchema: { type: 'object', properties: { number: { type: 'integer' } } },
        access: 'read',
      },
    ],
  }),
  'session.end': makeEvent(20, 'session.end', { reason: 'disposed' }),
  'cancel.requested': makeEvent(25, 'cancel.requested', { by: 'user', clearInbox: true }),
  'session.resumed': makeEvent(24, 'session.resumed', {
    config: { provider: 'openai', model: 'gpt-4.1', permissionMode: 'accept-edits', tools: [] },
  }),
  environment: makeEvent(22, 'environment', { text: '# Environment' }, { turn: 1, step: 1 }),
  'mode.changed': makeEvent(21, 'mode.changed', {
    from: 'plan',
    to: 'default',
    by: 'plan',
    plan: '1. read 2. edit',
    callId: 'c9',
  }),
  'hook.decided': makeEvent(
    23,
    'hook.decided',
    { point: 'preTool', hook: 'guard.sh', outcome: 'deny', reason: 'no', callId: 'c1', input: { a: 1 } },
    { turn: 1, step: 1 },
  ),
};

function parseError(line: string): string {
  try {
    parseLogLine(line, 7);
  } catch (error) {
    expect(error).toBeInstanceOf(LogFormatError);
    return (error as Error).message;
  }
  throw new Error('expected parseLogLine to throw');
}

describe('parseLogLine', () => {
  it('has a data schema for every event type', () => {
    expect(Object.keys(logEventDataSchemas).sort()).toEqual(Object.keys(samples).sort());
  });

  it.each(Object.values(samples))('accepts a valid $type event unchanged', (event) => {
    const line = formatLogLine(event);
    expect(line.endsWith('}\n')).toBe(true);
    const parsed = parseLogLine(line.trimEnd(), 1);
    expect(parsed).toEqual(event);
    // Key order survives, so a read-write round trip is byte for byte.
    expect(formatLogLine(parsed)).toBe(line);
  });

  it('keeps fields it does not know inside a known version', () => {
    const line = '{"v":1,"seq":0,"ts":1,"type":"tool.started","data":{"callId":"c","extra":true}}';
    expect(parseLogLine(line, 1).data).toEqual({ callId: 'c', extra: true });
  });

  it('rejects bad JSON', () => {
    expect(parseError('{"v":1,')).toMatch(/^line 7: not valid JSON \(/);
  });

  it('rejects a value that is not an object', () => {
    expect(parseError('[1]')).toBe('line 7: expected a JSON object, got an array');
    expect(parseError('3')).toBe('line 7: expected a JSON object, got number');
  });

  it('rejects an unknown event type', () => {
    expect(parseError('{"v":1,"seq":0,"ts":1,"type":"tool.exploded","data":{}}')).toBe(
      'line 7: unknown event type "tool.exploded"',
    );
  });

  it('rejects bad data, naming the field', () => {
    const message = parseError(
      '{"v":1,"seq":0,"ts":1,"type":"tool.result","data":{"callId":"c","content":""}}',
    );
    expect(message).toMatch(/^line 7: bad data for "tool.result"\n/);
    expect(message).toMatch(/→ at outcome/);
  });

  it('rejects a bad envelope', () => {
    expect(parseError('{"v":1,"seq":-1,"ts":1,"type":"turn.start","data":{}}')).toMatch(
      /^line 7: bad event envelope\n.*\n {2}→ at seq/,
    );
    expect(parseError('{"seq":0,"ts":1,"type":"turn.start","data":{}}')).toBe(
      'line 7: missing or invalid format version "v"',
    );
  });

  it('refuses a newer format version with a clear message', () => {
    const v = LOG_FORMAT_VERSION + 1;
    expect(parseError(`{"v":${v},"seq":0,"ts":1,"type":"whatever","data":{}}`)).toBe(
      `line 7: written by a newer agentchart (format v${v}); this build reads up to v${LOG_FORMAT_VERSION}`,
    );
  });

  it('refuses an older version it has no migration for', () => {
    expect(parseError('{"v":0,"seq":0,"ts":1,"type":"turn.start","data":{}}')).toBe(
      'line 7: format v0 is not supported (no migration to v1)',
    );
  });

  it('rejects a compaction whose range is reversed', () => {
    expect(
      parseError('{"v":1,"seq":0,"ts":1,"type":"compaction","data":{"replaces":[5,2],"summary":""}}'),
    ).toMatch(/replaces must be \[from, to\] with from <= to/);
  });
});

describe('migrate', () => {
  it('is the identity for the current version', () => {
    const event = { ...(samples['tool.call'] as LogEvent) };
    expect(migrate(event)).toBe(event);
  });
});

describe('validateSequence', () => {
  it('accepts a well-formed log and an empty one', () => {
    expect(() => validateSequence(sampleLog())).not.toThrow();
    expect(() => validateSequence([])).not.toThrow();
  });

  it('requires session.start first', () => {
    expect(() => validateSequence(sampleLog().slice(1))).toThrow(
      'the first event must be "session.start", found "turn.start"',
    );
  });

  it('requires seq contiguous from 0', () => {
    const log = sampleLog();
    const swapped = [log[0], log[2], log[1], ...log.slice(3)] as LogEvent[];
    expect(() => validateSequence(swapped)).toThrow('seq must be contiguous from 0: event 1 has seq 2');
  });
});
