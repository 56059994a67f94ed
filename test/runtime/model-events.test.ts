// What a provider yields is checked where it enters (the model-call actor): each defect is repaired with
// a note on the logged message, dropped with a note, or ends the step with a non-retryable bad_response.
// Whatever the provider does, the step ends, the process lives, and the log loads and resumes. The cases
// run in a child process (test/fixtures/boundary/model-events.ts), since several of them crashed or
// wedged the process before.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScript } from '../support/child-run.ts';

const usage = (input: number, output: number, cacheRead = 0) => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: cacheRead,
  cacheWriteTokens: 0,
});
const answered = (text: string, extra: Record<string, unknown> = {}) => [
  'assistant.message',
  { text, toolCalls: [], usage: usage(0, 0), stopReason: 'end_turn', ...extra },
];
const ok = ['assistant.message', { text: 'ok', toolCalls: [], usage: usage(1, 1), stopReason: 'end_turn' }];
const completed = ['turn.end', 'completed', null];

/** The turn went on: the repaired response, what its calls gave, and the model's next answer. */
function repaired(first: unknown[], ...rest: unknown[][]) {
  return { outcome: 'completed', resumed: 'completed', facts: [first, ...rest, ok, completed] };
}

/** The turn ended with a non-retryable error (its one attempt logged), and the session resumes. */
function failed(kind: string, message: string) {
  const error = { kind, message, retryable: false };
  const facts = [
    ['assistant.attempt', { error, attempt: 1 }],
    ['turn.end', 'model_error', error],
  ];
  return { outcome: 'model_error', resumed: 'completed', facts };
}

const malformed = (message: string) => failed('bad_response', `malformed model response: ${message}`);

function callResponse(calls: unknown[], notes: string[]) {
  return [
    'assistant.message',
    { text: '', toolCalls: calls, usage: usage(0, 0), stopReason: 'tool_use', notes },
  ];
}
const echoCall = (id: string, input: unknown = { text: 'hi' }) => ({ id, name: 'echo', input });
const called = (id: string, input: unknown = { text: 'hi' }) => [
  'tool.call',
  { callId: id, name: 'echo', input },
];

const expected: Record<string, unknown> = {
  'tool-call-without-call': malformed('tool call 0 carries undefined instead of a call'),
  'tool-call-non-string-id': repaired(
    callResponse(
      [echoCall('call_1_1_0')],
      ['tool call 0 ("echo") had number 7 as its id; it was given "call_1_1_0"'],
    ),
    called('call_1_1_0'),
    ['tool.result', 'call_1_1_0', 'echo hi'],
  ),
  'tool-call-empty-id': repaired(
    callResponse(
      [echoCall('call_1_1_0')],
      ['tool call 0 ("echo") had "" as its id; it was given "call_1_1_0"'],
    ),
    called('call_1_1_0'),
    ['tool.result', 'call_1_1_0', 'echo hi'],
  ),
  'tool-call-duplicate-id': repaired(
    callResponse(
      [echoCall('a', { text: 'one' }), echoCall('call_1_1_1', { text: 'two' })],
      ['tool call 1 ("echo") repeated the id "a"; it was given "call_1_1_1"'],
    ),
    called('a', { text: 'one' }),
    called('call_1_1_1', { text: 'two' }),
    ['tool.result', 'a', 'echo one'],
    ['tool.result', 'call_1_1_1', 'echo two'],
  ),
  'tool-call-empty-name': malformed('tool call 0 has an empty name'),
  'tool-call-non-string-name': malformed('tool call 0 has the name number 5'),
  'tool-call-input-missing': repaired(
    callResponse([{ id: 'c1', name: 'echo', input: {} }], ['tool call 0 ("echo") had no input; {} was used']),
    ['tool.call', { callId: 'c1', name: 'echo', input: {} }],
    [
      'tool.result',
      'c1',
      'Invalid arguments for echo:\n✖ Invalid input: expected string, received undefined\n  → at text',
    ],
  ),
  'tool-call-input-not-json': malformed(
    'the input of tool call 0 ("echo") cannot be logged: Do not know how to serialize a BigInt',
  ),
  'unknown-stop-reason': {
    outcome: 'completed',
    resumed: 'completed',
    facts: [
      answered('fine', {
        stopReason: 'other',
        notes: ['the stop reason "cosmic_rays" is not known; "other" was used'],
      }),
      completed,
    ],
  },
  'bad-usage': {
    outcome: 'completed',
    resumed: 'completed',
    facts: [
      answered('counted', {
        usage: usage(0, 0, 2),
        notes: [
          'the usage count inputTokens number NaN was counted as 0',
          'the usage count outputTokens number -3 was counted as 0',
          'the usage count cacheReadTokens number 2.5 was counted as 2',
          'the usage count cacheWriteTokens number Infinity was counted as 0',
        ],
      }),
      completed,
    ],
  },
  'malformed-provider-part': {
    outcome: 'completed',
    resumed: 'completed',
    facts: [
      answered('x', { notes: ['a provider part without a string provider and type was dropped'] }),
      completed,
    ],
  },
  'text-not-a-string': malformed("a text delta's text is number 42"),
  'unknown-event-type': {
    outcome: 'completed',
    resumed: 'completed',
    facts: [answered('cited', { notes: ['an event of unknown type "annotation" was dropped'] }), completed],
  },
  'not-an-object': malformed('the provider yielded null instead of an event'),
  'error-event-not-an-error': failed('server', 'unexpected: boom'),
  'stream-throws-synchronously': failed('server', 'unexpected: sync failure'),
  'stream-not-iterable': malformed(
    "the provider's stream() returned a value of type number, not an async iterable",
  ),
  'iterator-throws-non-error': failed('server', 'unexpected: undefined'),
  'iterator-throws-unprintable': failed('server', 'unexpected: {}'),
  // Before each class had its own marker, ConfigError passed ProviderError.isInstance; only a guard kept
  // this step from hanging.
  'iterator-throws-config-error': failed('server', 'unexpected: misconfigured mid-stream'),
  'iterator-return-throws': {
    outcome: 'completed',
    resumed: 'completed',
    facts: [answered('closing'), completed],
  },
};

let dir: string;
const reports = new Map<string, unknown>();
let childOutput = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentchart-model-events-'));
  const run = await runScript('test/fixtures/boundary/model-events.ts', {
    args: [dir, 'all'],
    timeoutMs: 60_000,
  });
  childOutput = `exit ${run.code}${run.timedOut ? ' (timed out)' : ''}\n${run.stderr}`;
  for (const line of run.stdout.split('\n').filter(Boolean)) {
    const { case: name, ...report } = JSON.parse(line) as { case: string };
    reports.set(name, report);
  }
}, 70_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a provider that breaks the event contract', () => {
  it('ran every case to the end in the child process', () => {
    expect({ cases: [...reports.keys()], childOutput }).toEqual({
      cases: Object.keys(expected),
      childOutput: 'exit 0\n',
    });
  });

  it.each(Object.keys(expected))('%s', (name) => {
    expect(reports.get(name)).toEqual(expected[name]);
  });
});
