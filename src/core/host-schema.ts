// Building blocks for the schemas that parse what a host passes in, and the one place where a failed
// parse becomes a ConfigError. Ground floor: it imports only zod and the error classes.
import { z } from 'zod/v4';
import { ConfigError } from '../errors/config-error.ts';
import { describeValue } from '../errors/describe-value.ts';
import type { Clock } from './clock.ts';
import { nearestKey } from './nearest-key.ts';

/** Zod's error option for a message that reads after the option's path: `limits.maxSteps must be …`. */
export const must = (what: string) => ({ error: `must be ${what}` });

/** A function, kept as it is (zod's own function schema would wrap it). */
export const hostFunction = z.custom<(...args: never[]) => unknown>(
  (value) => typeof value === 'function',
  must('a function'),
);

/** A whole number of at least 1. */
export const positiveInteger = z
  .number(must('a positive integer'))
  .int(must('a positive integer'))
  .positive(must('a positive integer'));

/** A whole number of at least 0. */
export const count = z
  .number(must('a whole number (0 or more)'))
  .int(must('a whole number (0 or more)'))
  .min(0, must('a whole number (0 or more)'));

const maxTimerMs = 2 ** 31 - 1;
const msMessage = must(`a whole number of milliseconds from 0 to ${maxTimerMs}`);

/** A delay: setTimeout fires at once for anything above 2^31 - 1, so that is the ceiling. */
export const milliseconds = z.number(msMessage).int(msMessage).min(0, msMessage).max(maxTimerMs, msMessage);

const timeoutMessage = must(`a whole number of milliseconds from 1 to ${maxTimerMs}`);

/** A timeout: at least 1 ms, at most what a timer can wait. */
export const timeoutMs = z
  .number(timeoutMessage)
  .int(timeoutMessage)
  .min(1, timeoutMessage)
  .max(maxTimerMs, timeoutMessage);

/** `true` or `false`. */
export const flag = z.boolean(must('true or false'));

/** A string that is not empty. */
export const nonEmptyString = z.string(must('a non-empty string')).min(1, must('a non-empty string'));

/** One of `values`, named in the message. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, must(`one of ${values.map((value) => `"${value}"`).join(', ')}`));
}

/**
 * An object the host implements (a provider, a store, a clock, a tool): checked against `shape`, but
 * kept as the very object the host passed, prototype and identity included.
 */
export function intact<T>(what: string, shape: z.ZodObject) {
  return z.custom<T>().superRefine((value, context) => {
    if (typeof value !== 'object' || value === null) {
      context.addIssue({ code: 'custom', message: `must be ${what}` });
      return;
    }
    const parsed = shape.safeParse(value);
    if (!parsed.success) for (const issue of parsed.error.issues) context.addIssue({ ...issue });
  });
}

/** A clock the host passes in (`{ now, setTimer }`), kept as it is. */
export const clockSchema = intact<Clock>(
  'a Clock ({ now, setTimer })',
  z.object({ now: hostFunction, setTimer: hostFunction }),
);

/** An issue whose message says all, without the `, got …` that follows the others. */
export const plainIssue = (message: string, path: PropertyKey[] = []) =>
  ({ code: 'custom', message, path, params: { plain: true } }) as const;

const shownIssues = 3;

/**
 * Parses a host value, or throws a ConfigError that names the call, each bad option by its path and
 * what it got: `createAgentSystem: limits.maxSteps must be a positive integer, got NaN`.
 */
export function parseHostValue<Schema extends z.ZodType>(
  call: string,
  schema: Schema,
  value: unknown,
  /** What the value itself is called in a message about it as a whole. */
  root = 'options',
): z.output<Schema> {
  let result: z.ZodSafeParseResult<z.output<Schema>>;
  try {
    result = schema.safeParse(value);
  } catch (error) {
    // A getter or proxy trap of the host's object threw while it was read.
    throw new ConfigError(`${call}: the options could not be read`, { cause: error });
  }
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => describeIssue(issue, { value, root, schema }));
  const more = lines.length > shownIssues ? ` (and ${lines.length - shownIssues} more)` : '';
  throw new ConfigError(`${call}: ${lines.slice(0, shownIssues).join('; ')}${more}`);
}

type Parsed = { value: unknown; root: string; schema: z.ZodType };

function describeIssue(issue: z.core.$ZodIssue, { value, root, schema }: Parsed): string {
  const path = formatPath(issue.path);
  const subject = path === '' ? root : path;
  if (issue.code === 'unrecognized_keys') {
    const known = keysAt(schema, issue.path);
    const keys = issue.keys
      .map((key) => {
        const near = nearestKey(key, known);
        return near === undefined ? `"${key}"` : `"${key}" (did you mean "${near}"?)`;
      })
      .join(', ');
    const plural = issue.keys.length > 1 ? 's' : '';
    return subject === 'options'
      ? `unknown option${plural} ${keys}`
      : `${subject} has ${plural ? 'unknown keys' : 'an unknown key'} ${keys}`;
  }
  if (issue.code === 'custom' && (issue.params as { plain?: boolean } | undefined)?.plain) {
    return `${subject} ${issue.message}`;
  }
  return `${subject} ${issue.message}, got ${describeValue(valueAt(value, issue.path))}`;
}

type Definition = {
  type: string;
  shape?: Record<string, z.core.$ZodType>;
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
  element?: z.core.$ZodType;
  valueType?: z.core.$ZodType;
};

/** The keys the object schema at `path` knows (none where the path leads to no object schema). */
function keysAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): string[] {
  let definition: Definition | undefined = unwrapped(schema);
  for (const key of path) {
    if (definition === undefined) return [];
    const next: z.core.$ZodType | undefined =
      definition.type === 'object'
        ? definition.shape?.[String(key)]
        : definition.type === 'array'
          ? definition.element
          : definition.type === 'record'
            ? definition.valueType
            : undefined;
    definition = next === undefined ? undefined : unwrapped(next);
  }
  return definition?.type === 'object' ? Object.keys(definition.shape ?? {}) : [];
}

/** Through `optional`, `nullable`, `default` and `pipe` to the schema that parses the value. */
function unwrapped(schema: z.core.$ZodType): Definition {
  let definition = schema._zod.def as Definition;
  for (let depth = 0; depth < 8; depth++) {
    const inner = definition.innerType ?? (definition.type === 'pipe' ? definition.in : undefined);
    if (inner === undefined) break;
    definition = inner._zod.def as Definition;
  }
  return definition;
}

function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else text += text === '' ? String(key) : `.${String(key)}`;
  }
  return text;
}

/** The value an issue is about; a getter that throws on this second read leaves it undefined. */
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  try {
    for (const key of path) {
      if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return undefined;
      value = (value as Record<PropertyKey, unknown>)[key];
    }
  } catch {
    return undefined;
  }
  return value;
}
