// fast-check generators of what a plain JavaScript host might pass to createAgentSystem: each option is
// drawn as a plan (plain data, so counterexamples print and shrink) marked `valid` or not;
// host-options.ts turns a plan into the real options object.
import fc from 'fast-check';

/** One option: its plan and whether createAgentSystem must accept it. */
export type Field = { plan: unknown; valid: boolean };

const good = (arbitrary: fc.Arbitrary<unknown>) => arbitrary.map((plan): Field => ({ plan, valid: true }));
const bad = (arbitrary: fc.Arbitrary<unknown>) => arbitrary.map((plan): Field => ({ plan, valid: false }));
/** Mostly good values or absent, now and then a bad one. */
const field = (valid: fc.Arbitrary<unknown>, invalid: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 6, arbitrary: good(fc.constant(undefined)) },
    { weight: 13, arbitrary: good(valid) },
    // About half of all option objects then hold at least one bad value.
    { weight: 1, arbitrary: bad(invalid) },
  );

const badNumbers = fc.constantFrom(Number.NaN, 0, -1, 1.5, Number.POSITIVE_INFINITY, '2', null);
// A delay of 0 is valid (retry at once); one of 2^31 ms or more would make a timer fire at once.
const badDelays = fc.constantFrom(Number.NaN, -1, 1.5, Number.POSITIVE_INFINITY, 2 ** 31, '2', null);
const limitKeys = fc.constantFrom('maxSteps', 'maxUnknownToolCalls', 'maxParallelTools', 'maxAttempts');
const rules = fc.array(fc.constantFrom('probe', 'write_note', 'write_note(notes/**)', 'bash(npm test*)'), {
  maxLength: 2,
});

/** What a callback answers (approver, hook) or a tool's run gives back, as data. */
export const answerArbitrary = fc.oneof(
  fc.constantFrom('allow', 'allow_session', 'deny', 'DENY', 'no', '', false, true, null, undefined, 0),
  fc.constant({ veto: 'stop' }),
  fc.constant({ veto: 5 }),
  fc.record({ throws: fc.constantFrom('error', 'string', 'undefined') }),
  fc.record({ sync: fc.constantFrom('allow', 'deny', false) }),
);

const toolOutputArbitrary = fc.oneof(
  fc.anything({ withBigInt: true, withMap: true, withSet: true, withTypedArray: true }),
  fc.constantFrom('circular', 'function', 'symbol'),
  fc.record({ content: fc.anything() }),
  fc.record({ content: fc.string(), isError: fc.anything() }),
  fc.record({ throws: fc.constantFrom('error', 'string', 'undefined') }),
);

export const optionsPlanArbitrary = fc.record({
  model: fc.oneof(
    { weight: 9, arbitrary: good(fc.constant('scripted')) },
    bad(fc.constantFrom('gpt-4', 'no-stream')),
  ),
  tools: fc.oneof(
    { weight: 19, arbitrary: good(fc.constant('both')) },
    { weight: 1, arbitrary: bad(fc.constantFrom('one-tool', 'strings', 'duplicates', 'plain-objects')) },
  ),
  permissionMode: field(
    fc.constantFrom('plan', 'default', 'accept-edits', 'bypass'),
    fc.constantFrom('yolo', 'Plan', '', 5),
  ),
  permissions: field(
    fc.record({ allow: rules, deny: rules }, { requiredKeys: [] }),
    fc.constantFrom({ deny: 'echo' }, { allow: ['bash('] }, { allow: [5] }, 'all', { denny: [] }),
  ),
  limits: field(
    fc.record(
      {
        maxSteps: fc.integer({ min: 1, max: 3 }),
        maxUnknownToolCalls: fc.integer({ min: 1, max: 3 }),
        maxParallelTools: fc.integer({ min: 1, max: 3 }),
        maxAttempts: fc.integer({ min: 1, max: 3 }),
      },
      { requiredKeys: [] },
    ),
    fc.tuple(limitKeys, badNumbers).map(([key, value]) => ({ [key]: value })),
  ),
  retry: field(
    fc.record({ baseDelayMs: fc.integer({ min: 0, max: 3 }), maxDelayMs: fc.integer({ min: 0, max: 3 }) }),
    fc
      .tuple(fc.constantFrom('baseDelayMs', 'maxDelayMs'), badDelays)
      .map(([key, value]) => ({ [key]: value })),
  ),
  // Never absent: without an approver, write_note asking in most modes is a ConfigError (approver-check.test).
  approve: fc.oneof(
    { weight: 6, arbitrary: good(fc.constant('deny')) },
    { weight: 13, arbitrary: good(answerArbitrary.map((answer) => ({ answer }))) },
    { weight: 1, arbitrary: bad(fc.constantFrom(true, 'auto', 'allow', 5)) },
  ),
  ids: field(
    fc.oneof(
      { weight: 3, arbitrary: fc.constant('counter') },
      fc.constantFrom('number', 'empty', 'path', 'throws', 'every-third-bad'),
    ),
    fc.constantFrom('abc', 5, 'object'),
  ),
  clock: field(
    fc.constantFrom(
      'real',
      'now-garbage',
      'now-throws',
      'timer-throws',
      'timer-sync',
      'timer-returns-garbage',
    ),
    fc.constantFrom('no-setTimer', 'no-now', 'function', 5),
  ),
  hooks: field(
    answerArbitrary.map((answer) => ({ answer })),
    fc.constantFrom('string', 'function', 'misspelt'),
  ),
  cwd: field(
    fc.oneof({ weight: 5, arbitrary: fc.constant('workspace') }, fc.constant('missing')),
    fc.constantFrom(5, '', 'a\0b'),
  ),
  projectInstructions: field(fc.boolean(), fc.constantFrom('no', 1)),
  subagents: field(
    fc.record({ maxDepth: fc.integer({ min: 0, max: 2 }), maxSteps: fc.integer({ min: 1, max: 2 }) }),
    fc.constantFrom({ maxDepth: -1 }, { permissionMode: 'yolo' }, 'deep'),
  ),
  // A tiny threshold makes every turn compact before its steps, so summaries take script entries too.
  compaction: field(
    fc.record(
      {
        threshold: fc.constantFrom(0.0001, 0.8, 1),
        keepRecentTurns: fc.integer({ min: 1, max: 2 }),
        enabled: fc.boolean(),
      },
      { requiredKeys: [] },
    ),
    fc.constantFrom({ threshold: 0 }, { threshold: 2 }, { keepRecentTurns: 0 }, { instructions: '' }, 'on'),
  ),
  store: field(fc.constant('memory'), fc.constantFrom('empty-object', 'path', 'load-only')),
  extra: fc.oneof({ weight: 9, arbitrary: good(fc.constant(undefined)) }, bad(fc.constant('permisions'))),
  calls: fc.array(fc.constantFrom('probe', 'write_note', 'nope'), { maxLength: 4 }),
  output: toolOutputArbitrary,
});

export type OptionsPlan = typeof optionsPlanArbitrary extends fc.Arbitrary<infer Plan> ? Plan : never;

/** Whether createAgentSystem must accept the plan: every option in it is valid. */
export function allValid(plan: OptionsPlan): boolean {
  return Object.values(plan).every((value) => !isField(value) || value.valid);
}

function isField(value: unknown): value is Field {
  return typeof value === 'object' && value !== null && 'valid' in value && 'plan' in value;
}
