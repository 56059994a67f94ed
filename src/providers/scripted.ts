import { z } from 'zod/v4';
import { type Clock, systemClock } from '../core/clock.ts';
import {
  clockSchema,
  flag,
  must,
  oneOf,
  parseHostValue,
  plainIssue,
  positiveInteger,
} from '../core/host-schema.ts';
import { ProviderError, type ProviderErrorKind, providerErrorKinds } from '../errors/provider-error.ts';
import { type ModelPrices, modelPricesSchema } from './prices.ts';
import type {
  Citation,
  ModelEvent,
  ModelRequest,
  ModelStopReason,
  PromptCacheSetting,
  Provider,
  ProviderPart,
  Usage,
} from './types.ts';

/** One scripted model response. `error` after `text` fails the stream mid-way, after the text. */
export type ScriptStep = {
  text?: string;
  /** An answer given as JSON: the text is `JSON.stringify(json)` (for typed runs; not with `text`). */
  json?: unknown;
  toolCalls?: { id?: string; name: string; input: unknown }[];
  usage?: Partial<Usage>;
  /** Wait this long on the injected clock before answering (and between chunks when `chunkDelayMs`). */
  delayMs?: number;
  stopReason?: ModelStopReason;
  /** Vendor content to log with the message (a replayed session answers with what was recorded). */
  providerParts?: ProviderPart[];
  citations?: Citation[];
  error?: { kind: ProviderErrorKind; retryAfterMs?: number; message?: string };
  /** Stream `text`, then send nothing more until the request is aborted (a response a cancel cut off). */
  held?: boolean;
};

export type ScriptEntry = ScriptStep | ((request: ModelRequest) => ScriptStep);

export type ScriptedOptions = {
  /** Characters per text delta (default 8). */
  chunkSize?: number;
  /** Time source for `delayMs`; pass the runtime's clock to drive delays from a simulated clock. */
  clock?: Clock;
  model?: string;
  /** The context window the model reports (a positive integer of tokens); default none. */
  contextWindow?: number;
  /** What it says of prompt caching (a replay says what the recorded provider said); default nothing. */
  promptCache?: PromptCacheSetting;
  /** Prices for a cost estimate (a replay reports the recording's); default none. */
  prices?: ModelPrices;
};

/** A deterministic provider for tests and the demo: it is not a model, and it says so in its name. */
export interface ScriptedProvider extends Provider {
  /** Every request received, in order (deep copies, so later mutation cannot change them). */
  readonly requests: ModelRequest[];
  /** Throws unless every script entry has been used. */
  assertConsumed(): void;
}

const optionsSchema = z.strictObject(
  {
    chunkSize: positiveInteger.optional(),
    clock: clockSchema.optional(),
    model: z.string(must('a string')).optional(),
    contextWindow: positiveInteger.optional(),
    promptCache: z
      .union([z.literal(false), z.record(z.string(), z.string())], must('false or an object of strings'))
      .optional(),
    prices: modelPricesSchema.optional(),
  },
  must('an object'),
);

// The keys of a step are checked (a misspelt `toolcalls` would answer with nothing); its values are left
// to the runtime, which reads a scripted answer as it reads any model's (tests script malformed ones).
const list = z.array(z.unknown(), must('an array'));
const stepSchema = z
  .strictObject(
    {
      text: z.string(must('a string')).optional(),
      json: z.unknown().optional(),
      toolCalls: z
        .array(
          z.strictObject(
            { id: z.unknown().optional(), name: z.unknown().optional(), input: z.unknown().optional() },
            must('an object'),
          ),
          must('an array'),
        )
        .optional(),
      usage: z.unknown().optional(),
      delayMs: z.unknown().optional(),
      stopReason: z.unknown().optional(),
      providerParts: list.optional(),
      citations: list.optional(),
      error: z
        .strictObject(
          {
            kind: oneOf(providerErrorKinds),
            retryAfterMs: z.unknown().optional(),
            message: z.unknown().optional(),
          },
          must('an object'),
        )
        .optional(),
      held: flag.optional(),
    },
    must('a script step or a function'),
  )
  .refine((step) => step.text === undefined || step.json === undefined, {
    ...plainIssue('gives its answer as text or as json, not both'),
  });
const entriesSchema = z.array(z.unknown(), must('an array of script steps'));

/**
 * A provider that answers request N with script entry N. For tests and the demo only.
 *
 * @example
 * const model = scripted([{ toolCalls: [{ name: 'read_file', input: { path: 'a.ts' } }] }, { text: 'Done.' }]);
 *
 * @throws ConfigError when a step or an option has an unknown key (`scripted: entries[0] has an unknown
 * key "toolcalls" (did you mean "toolCalls"?)`) or an option a wrong value (`contextWindow` not a
 * positive integer).
 */
export function scripted(entries: ScriptEntry[], given: ScriptedOptions = {}): ScriptedProvider {
  // The script is kept as given (a test may add entries later); its steps are checked now.
  const options = parseHostValue('scripted', optionsSchema, given);
  parseHostValue('scripted', entriesSchema, entries, 'entries');
  for (const [index, entry] of entries.entries())
    if (typeof entry !== 'function') parseHostValue('scripted', stepSchema, entry, `entries[${index}]`);
  const { contextWindow } = options;
  const chunkSize = options.chunkSize ?? 8;
  const clock = options.clock ?? systemClock;
  const requests: ModelRequest[] = [];
  let callIndex = 0;

  async function* stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
    const index = callIndex++;
    requests.push(structuredClone(request));
    const entry = entries[index];
    if (entry === undefined) {
      yield failure(
        'bad_request',
        `scripted model has no entry for request #${index} (script has ${entries.length})`,
      );
      return;
    }
    const step = answerOf(typeof entry === 'function' ? entry(request) : entry);
    if (step.delayMs && !(await sleep(clock, step.delayMs, signal))) {
      yield aborted();
      return;
    }
    for (let offset = 0; offset < (step.text?.length ?? 0); offset += chunkSize) {
      if (signal.aborted) {
        yield aborted();
        return;
      }
      yield { type: 'text.delta', text: step.text!.slice(offset, offset + chunkSize) };
    }
    if (step.held) {
      await untilAborted(signal);
      yield aborted();
      return;
    }
    if (step.error) {
      yield failure(
        step.error.kind,
        step.error.message ?? `scripted ${step.error.kind}`,
        step.error.retryAfterMs,
      );
      return;
    }
    const calls = step.toolCalls ?? [];
    for (const [position, call] of calls.entries()) {
      if (signal.aborted) {
        yield aborted();
        return;
      }
      yield {
        type: 'tool_call',
        call: { id: call.id ?? `call_${index}_${position}`, name: call.name, input: call.input },
      };
    }
    for (const part of step.providerParts ?? []) yield { type: 'provider_part', part };
    for (const citation of step.citations ?? []) yield { type: 'citation', citation };
    yield { type: 'usage', usage: { inputTokens: 10, outputTokens: 5, ...step.usage } };
    yield { type: 'done', stopReason: step.stopReason ?? (calls.length > 0 ? 'tool_use' : 'end_turn') };
  }

  return {
    name: 'scripted',
    model: options.model ?? 'scripted',
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    ...(options.promptCache !== undefined ? { promptCache: options.promptCache } : {}),
    ...(options.prices !== undefined ? { prices: options.prices } : {}),
    requests,
    stream,
    assertConsumed() {
      if (callIndex < entries.length) {
        throw new Error(`scripted model used ${callIndex} of ${entries.length} script entries`);
      }
    },
  };
}

/** A step whose answer is given as JSON, as the text a model would have written. */
function answerOf(step: ScriptStep): ScriptStep {
  if (step.json === undefined) return step;
  const { json, ...rest } = step;
  return { ...rest, text: JSON.stringify(json) };
}

function failure(kind: ProviderErrorKind, message: string, retryAfterMs?: number): ModelEvent {
  return { type: 'error', error: new ProviderError({ kind, message, retryAfterMs }) };
}

function aborted(): ModelEvent {
  return failure('aborted', 'request aborted');
}

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** Resolves true after `ms` on `clock`, or false as soon as `signal` aborts. */
function sleep(clock: Clock, ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      cancel();
      resolve(false);
    };
    const cancel = clock.setTimer(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
