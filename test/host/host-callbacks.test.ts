// The callbacks a host gives the runtime, as a plain JavaScript host would write them, wrong ones included.
// Each group runs in a child process (test/fixtures/boundary/host-cases.ts): on a build without these
// guards they crash the process or wedge a turn. The child must exit cleanly and print one line per case.
import { describe, expect, it } from 'vitest';
import { runScript } from '../support/child-run.ts';

async function runGroup(group: string): Promise<Record<string, unknown>[]> {
  const run = await runScript('test/fixtures/boundary/host-cases.ts', { args: [group], timeoutMs: 30_000 });
  expect({ code: run.code, timedOut: run.timedOut, stderr: run.stderr }).toEqual({
    code: 0,
    timedOut: false,
    stderr: '',
  });
  return run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const notAllowed = (shown: string) => `the approver answered ${shown}, not "allow" or "allow_session"`;
const idRule = 'an id of 1-128 letters, digits, ".", "_" or "-" (not "." or "..")';

describe('approval fails closed', () => {
  it('only exactly "allow" or "allow_session" runs the write call; every other answer denies with its reason logged', async () => {
    const lines = await runGroup('approvals');
    const summary = lines.map((line) => {
      const [decided] = line.decided as { outcome: string; by: string; reason?: string }[];
      return [line.case, line.ran, decided?.outcome, decided?.reason ?? null, line.results];
    });
    expect(summary).toEqual([
      ['async allow', true, 'allow', null, ['ok']],
      ['async allow_session', true, 'allow_session', null, ['ok']],
      ['async deny', false, 'deny', 'the host denied this call', ['denied']],
      ['async false', false, 'deny', notAllowed('false'), ['denied']],
      ['async undefined', false, 'deny', notAllowed('undefined'), ['denied']],
      ['async null', false, 'deny', notAllowed('null'), ['denied']],
      ['async "no"', false, 'deny', notAllowed('"no"'), ['denied']],
      ['async "DENY"', false, 'deny', notAllowed('"DENY"'), ['denied']],
      ['async "Allow"', false, 'deny', notAllowed('"Allow"'), ['denied']],
      ['async true', false, 'deny', notAllowed('true'), ['denied']],
      ['async { outcome: "allow" }', false, 'deny', notAllowed('an object'), ['denied']],
      ['rejected promise', false, 'deny', 'the approver failed (no approver here)', ['denied']],
      ['rejected with undefined', false, 'deny', 'the approver failed (undefined)', ['denied']],
      [
        'rejected with an object whose message getter throws',
        false,
        'deny',
        'the approver failed (an object)',
        ['denied'],
      ],
      // Documented: the answer may come directly or through a promise; only its value matters.
      ['sync allow', true, 'allow', null, ['ok']],
      ['sync false', false, 'deny', notAllowed('false'), ['denied']],
      ['sync throw', false, 'deny', 'the approver failed (boom)', ['denied']],
    ]);
    expect(lines.every((line) => line.reason === 'completed')).toBe(true);
  });
});

describe('the pre-step hook fails closed', () => {
  it('only undefined lets the step run; a veto, garbage or a throw blocks the turn with a loadable reason', async () => {
    const hookSaid = (shown: string) => `pre-step hook answered ${shown}, not undefined or { veto: string }`;
    expect(await runGroup('hooks')).toEqual([
      { case: 'undefined', reason: 'completed', vetoReason: null },
      { case: '{ veto: "not now" }', reason: 'blocked', vetoReason: 'not now' },
      { case: '{ veto: 5 }', reason: 'blocked', vetoReason: hookSaid('an object with veto 5') },
      { case: '5', reason: 'blocked', vetoReason: hookSaid('5') },
      { case: 'null', reason: 'blocked', vetoReason: hookSaid('null') },
      { case: '{}', reason: 'blocked', vetoReason: hookSaid('an object') },
      { case: 'sync "go"', reason: 'blocked', vetoReason: hookSaid('"go"') },
      { case: 'sync throw', reason: 'blocked', vetoReason: 'pre-step hook failed: hook broke' },
      {
        case: 'a proxy that throws on every read',
        reason: 'blocked',
        vetoReason: 'pre-step hook failed: trap',
      },
    ]);
  });
});

describe('tool outputs', () => {
  it('whatever run returns or throws becomes a well-defined result, and the log loads back', async () => {
    const unusable = (what: string) => `Error: the tool returned ${what}.`;
    const lines = await runGroup('outputs');
    expect(lines.map((line) => [line.case, line.outcome, line.content])).toEqual([
      ['a string', 'ok', 'text'],
      ['{ content, isError: true }', 'error', 'bad'],
      ['undefined', 'ok', ''],
      ['null', 'ok', ''],
      ['a number', 'ok', '42'],
      ['a bigint', 'ok', '10'],
      ['a boolean', 'ok', 'false'],
      ['{ content: 5 }', 'ok', '{"content":5}'],
      ['{ content: "x", isError: "yes" }', 'ok', '{"content":"x","isError":"yes"}'],
      ['an object without content', 'ok', '{"rows":[1,2]}'],
      ['an array', 'ok', '["a","b"]'],
      [
        'a circular object',
        'error',
        unusable(
          'a value that cannot be encoded as JSON (Converting circular structure to JSON\n' +
            "    --> starting at object with constructor 'Object'\n" +
            "    --- property 'self' closes the circle)",
        ),
      ],
      [
        'an object holding a bigint',
        'error',
        unusable('a value that cannot be encoded as JSON (Do not know how to serialize a BigInt)'),
      ],
      ['a function', 'error', unusable('a function, which is not a result')],
      ['a symbol', 'error', unusable('a symbol, which is not a result')],
      // Resolving an async function with it reads `then`, so the trap's throw is the rejection.
      ['a proxy that throws on every read', 'error', 'Error: trap'],
      ['a sync return (not a promise)', 'ok', 'sync text'],
      ['throws a string', 'error', 'Error: plain string'],
      ['throws undefined', 'error', 'Error: undefined'],
      ['throws an object', 'error', 'Error: {"code":"E_THING"}'],
      ['throws synchronously', 'error', 'Error: sync failure'],
    ]);
  });
});

describe('ids from the host', () => {
  it('an id that is not a safe string is a ConfigError at the call that needed it, and nothing unloadable is written', async () => {
    const bad = (call: string, shown: string) =>
      `ConfigError: ${call}: ids() must return ${idRule}, got ${shown}`;
    const childError = `task: ids() must return ${idRule}, got "../escape"`;
    expect(await runGroup('ids')).toEqual([
      { case: 'a number', threw: bad('createAgent', '5'), sessions: [] },
      { case: 'an empty string', threw: bad('createAgent', '""'), sessions: [] },
      { case: 'a path', threw: bad('createAgent', '"../etc/passwd"'), sessions: [] },
      { case: 'undefined', threw: bad('createAgent', 'undefined'), sessions: [] },
      { case: 'a throwing generator', threw: 'ConfigError: createAgent: ids() threw: out of ids' },
      {
        case: 'a bad inbox id',
        followup: { threw: bad('agent.followup', '5') },
        run: { threw: bad('agent.run', 'an object') },
        runAgain: 'completed',
        queued: [{ id: 'in1', channel: 'followup', message: 'third' }],
      },
      {
        case: 'a bad subagent id',
        reason: 'completed',
        // The task tool's call fails like any tool: an error result the model reads.
        results: [{ callId: 'c1', outcome: 'error', content: `Error: ${childError}`, error: childError }],
        sessions: ['p'],
      },
    ]);
  });
});

describe('options that crashed or wedged a running agent', () => {
  it('are refused at createAgentSystem with a ConfigError naming the option; the process lives', async () => {
    const refused = (message: string) => `ConfigError: createAgentSystem: ${message}`;
    expect(await runGroup('options')).toEqual([
      {
        case: 'a clock without setTimer',
        threw: refused('clock.setTimer must be a function, got undefined'),
      },
      {
        case: 'permissionMode "yolo"',
        threw: refused(
          'permissionMode must be one of "plan", "default", "accept-edits", "bypass", got "yolo"',
        ),
      },
      {
        case: "deny: 'echo'",
        threw: refused('permissions.deny must be an array of permission rules, got "echo"'),
      },
      {
        case: 'a malformed allow rule',
        threw: refused(
          'permissions.allow[0] is not a permission rule: write a tool name ("read_file") or a tool name with a ' +
            'pattern in parentheses ("bash(npm test*)", "write_file(src/**)"), got "echo("',
        ),
      },
      { case: 'limits.maxSteps NaN', threw: refused('limits.maxSteps must be a positive integer, got NaN') },
      {
        case: 'limits.maxAttempts NaN',
        threw: refused('limits.maxAttempts must be a positive integer, got NaN'),
      },
      { case: 'approve: true', threw: refused('approve must be a function, "manual" or "deny", got true') },
      { case: 'the valid options these were made from', ran: 'max_steps' },
    ]);
  });
});

describe('a clock that misbehaves at run time', () => {
  it('keeps every ts a finite number, and timers fire without a cancel function or a working setTimer', async () => {
    expect(await runGroup('clocks')).toEqual([
      {
        case: 'now() answers a string, NaN or throws by turns; setTimer throws',
        reason: 'completed',
        results: ['ok'],
        finiteTimes: true,
      },
      {
        case: 'setTimer answers a number instead of a cancel function',
        reason: 'completed',
        results: ['ok'],
        finiteTimes: true,
      },
    ]);
  });
});
