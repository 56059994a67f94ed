import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import { ProviderError } from '../../src/errors/provider-error.ts';
import { classifyError, classifyVendorError, retryAfter } from '../../src/providers/classify-error.ts';

// Plain error-like values: the classifier reads fields, it never needs an SDK class.
function httpError(status: number, body: unknown = {}, headers: Record<string, string> = {}) {
  return Object.assign(new Error(`${status} ${JSON.stringify(body)}`), {
    status,
    error: body,
    headers: new Headers(headers),
  });
}

const kindOf = (error: unknown, signal?: AbortSignal) => {
  const classified = classifyError(error, signal ? { signal } : {});
  return [classified.kind, classified.retryable];
};

describe('classifyError', () => {
  it('classifies HTTP statuses', () => {
    expect(
      [429, 529, 500, 502, 503, 401, 403, 400, 404, 422, 408, 409].map((status) => kindOf(httpError(status))),
    ).toEqual([
      ['rate_limit', true],
      ['overloaded', true],
      ['server', true],
      ['server', true],
      ['server', true],
      ['auth', false],
      ['auth', false],
      ['bad_request', false],
      ['bad_request', false],
      ['bad_request', false],
      ['network', true],
      ['server', true],
    ]);
  });

  it('tells context overflow apart from other bad requests', () => {
    const messages = [
      'prompt is too long: 210000 tokens > 200000 maximum',
      "This model's maximum context length is 128000 tokens",
      'input length and `max_tokens` exceed context limit: 197626 + 8192 > 200000',
      'missing field: messages',
    ];
    expect(messages.map((message) => kindOf(httpError(400, { error: { message } }))[0])).toEqual([
      'context_overflow',
      'context_overflow',
      'context_overflow',
      'bad_request',
    ]);
    expect(kindOf(Object.assign(httpError(400), { message: '400 context_length_exceeded' }))).toEqual([
      'context_overflow',
      false,
    ]);
  });

  it('reads an overloaded_error type even behind another status, and exhausted quota is final', () => {
    expect(
      kindOf(httpError(503, { type: 'error', error: { type: 'overloaded_error', message: 'x' } })),
    ).toEqual(['overloaded', true]);
    expect(kindOf(Object.assign(httpError(429), { code: 'insufficient_quota' }))).toEqual(['quota', false]);
  });

  it('tells an account that may not spend (quota) and a refused generation (invalid_output) from the rest', () => {
    const groq = {
      message: 'Failed to call a function. Please adjust your prompt.',
      type: 'invalid_request_error',
      code: 'tool_use_failed',
    };
    const midStream = (body: Record<string, unknown>) =>
      Object.assign(new Error(String(body.message)), { status: undefined, error: body, ...body });
    expect(
      [
        httpError(400, { error: groq }),
        midStream(groq),
        midStream({
          type: 'insufficient_quota',
          code: 'insufficient_quota',
          message: 'You exceeded your quota',
        }),
        httpError(400, {
          type: 'error',
          error: {
            type: 'invalid_request_error',
            message: 'Your credit balance is too low to access the API',
          },
        }),
        httpError(402, { type: 'error', error: { type: 'billing_error', message: 'Payment required' } }),
      ].map((error) => kindOf(error)),
    ).toEqual([
      ['invalid_output', true],
      ['invalid_output', true],
      ['quota', false],
      ['quota', false],
      ['quota', false],
    ]);
    // The vendor's own words, without an "unexpected:" prefix.
    expect(
      classifyError(midStream({ type: 'insufficient_quota', code: 'insufficient_quota', message: 'Pay up' }))
        .message,
    ).toBe('Pay up');
  });

  it('classifies errors that arrive mid-stream (no status) by their type', () => {
    const midStream = (type: string) => Object.assign(new Error('x'), { status: undefined, type });
    expect(
      [
        'overloaded_error',
        'rate_limit_error',
        'api_error',
        'authentication_error',
        'invalid_request_error',
      ].map((type) => kindOf(midStream(type))[0]),
    ).toEqual(['overloaded', 'rate_limit', 'server', 'auth', 'bad_request']);
    expect(classifyVendorError('context_length_exceeded', 'too long').kind).toBe('context_overflow');
    expect(classifyVendorError(undefined, undefined).toJSON()).toEqual({
      kind: 'server',
      retryable: true,
      message: 'the model server reported an error',
    });
  });

  it('classifies socket failures, timeouts and connection errors as network', () => {
    const reset = Object.assign(new TypeError('terminated'), {
      cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
    });
    const errors = [
      reset,
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      new Error('socket hang up'),
      Object.assign(new Error('Connection error.'), { name: 'APIConnectionError' }),
      Object.assign(new Error('Request timed out.'), { name: 'APIConnectionTimeoutError' }),
    ];
    expect(errors.map((error) => kindOf(error))).toEqual(errors.map(() => ['network', true]));
    expect(classifyError(reset).message).toBe('terminated (other side closed)');
  });

  it('calls it aborted when the user aborted, whatever the error says', () => {
    const controller = new AbortController();
    controller.abort();
    expect(kindOf(httpError(500), controller.signal)).toEqual(['aborted', false]);
    expect(kindOf(Object.assign(new Error('Request was aborted.'), { name: 'APIUserAbortError' }))).toEqual([
      'aborted',
      false,
    ]);
  });

  it('does not retry what it cannot recognise, and passes ProviderErrors through', () => {
    expect(classifyError(new RangeError('bug')).toJSON()).toEqual({
      kind: 'server',
      retryable: false,
      message: 'unexpected: bug',
    });
    expect(kindOf(new SyntaxError('Unexpected end of JSON input'))).toEqual(['server', true]);
    const original = new ProviderError({ kind: 'auth', message: 'no' });
    expect(classifyError(original)).toBe(original);
    expect(kindOf(new Error('The OPENAI_API_KEY environment variable is missing or empty'))).toEqual([
      'auth',
      false,
    ]);
  });
});

describe('retryAfter', () => {
  const clock = new SimulatedClock(Date.parse('Sun, 29 Nov 2026 19:00:00 GMT'));
  it('prefers retry-after-ms, then retry-after seconds, then an HTTP date on the clock', () => {
    expect(
      (
        [
          { 'retry-after-ms': '250', 'retry-after': '9' },
          { 'retry-after': '1.5' },
          { 'retry-after': 'Sun, 29 Nov 2026 19:01:00 GMT' },
          { 'retry-after': 'Sun, 29 Nov 2026 18:00:00 GMT' },
          { 'retry-after': 'soon' },
          {},
        ] as Record<string, string>[]
      ).map((headers) => retryAfter(new Headers(headers), clock)),
    ).toEqual([250, 1500, 60_000, 0, undefined, undefined]);
    expect(retryAfter({ 'retry-after': '2' }, clock)).toBe(2000);
  });

  it('puts the delay on rate limit errors', () => {
    expect(classifyError(httpError(429, {}, { 'retry-after-ms': '10' })).retryAfterMs).toBe(10);
  });
});
