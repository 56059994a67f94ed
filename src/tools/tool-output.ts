// What a tool's `run` gave back, turned into the result the log records and the model reads. A tool is
// host code: whatever it returns or throws gets a well-defined result here, and nothing it does can make
// the call fail to settle or write a result that cannot be loaded back.
import { describeValue, messageOf } from '../errors/describe-value.ts';

/** A settled tool result as the tool batch commits it. */
export type OutputResult = { outcome: 'ok' | 'error'; content: string; error?: string };

/**
 * The result of a value `run` resolved with:
 * - a string: `ok` with that text;
 * - `{ content: string, isError?: boolean }`: `ok`, or `error` when `isError` is true;
 * - `undefined` or `null`: `ok` with empty content (the tool finished and had nothing to say);
 * - a number, boolean or bigint: `ok` with its decimal text;
 * - any other object (an array, `{ content: 5 }`, `{ rows: [...] }`): `ok` with its JSON text;
 * - something JSON cannot encode (a circular object, a function, a symbol, a throwing getter): an `error`
 *   result that says so.
 */
export function resultOfOutput(output: unknown): OutputResult {
  try {
    switch (typeof output) {
      case 'string':
        return { outcome: 'ok', content: output };
      case 'undefined':
        return { outcome: 'ok', content: '' };
      case 'number':
      case 'boolean':
      case 'bigint':
        return { outcome: 'ok', content: String(output) };
      case 'function':
      case 'symbol':
        return unusable(`${describeValue(output)}, which is not a result`);
    }
    if (output === null) return { outcome: 'ok', content: '' };
    const { content, isError } = output as { content?: unknown; isError?: unknown };
    if (typeof content === 'string' && (isError === undefined || typeof isError === 'boolean')) {
      return isError ? { outcome: 'error', content, error: content } : { outcome: 'ok', content };
    }
    const json: unknown = JSON.stringify(output);
    if (typeof json !== 'string') return unusable('an object whose JSON form is empty');
    return { outcome: 'ok', content: json };
  } catch (error) {
    // JSON.stringify on a circular object or a BigInt, or a getter or proxy trap that threw.
    return unusable(`a value that cannot be encoded as JSON (${messageOf(error)})`);
  }
}

/** The result of a `run` that threw or rejected, with whatever value (`throw 'x'`, `reject(undefined)`). */
export function resultOfThrow(error: unknown): OutputResult {
  const message = messageOf(error);
  return { outcome: 'error', content: `Error: ${message}`, error: message };
}

function unusable(what: string): OutputResult {
  const message = `the tool returned ${what}`;
  return { outcome: 'error', content: `Error: ${message}.`, error: message };
}
