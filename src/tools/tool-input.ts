// A tool's input schema, in any of the forms `defineTool` takes: a zod 4 schema (`zod` 4 or `zod/v4`), any
// other Standard Schema (zod 3, valibot, arktype: https://standardschema.dev), or a plain JSON Schema
// object. Each form gives the runtime the same two things: a check of the model's arguments, and the JSON
// Schema the model is shown.
import { Validator } from '@cfworker/json-schema';
import { z } from 'zod/v4';

/**
 * The part of the Standard Schema interface agentchart uses, written loosely so that every library's own
 * declaration of it (whatever its version) fits.
 */
export type StandardSchema<Output = unknown> = {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => unknown;
    readonly types?: { readonly output: Output } | undefined;
  };
};

/** A plain JSON Schema (draft-07) for a tool's arguments: always an object. */
export type JsonSchemaObject = {
  type: 'object';
  properties?: Record<string, unknown>;
  required?: readonly string[];
  [keyword: string]: unknown;
};

/** What `defineTool` takes as `input`. */
export type ToolInputSchema<Input = unknown> = StandardSchema<Input> | JsonSchemaObject;

/** The arguments type a schema gives `run`: a Standard Schema's output, or an object for JSON Schema. */
export type InputOf<Schema> = Schema extends StandardSchema
  ? NonNullable<Schema['~standard']['types']>['output']
  : Record<string, unknown>;

/** The result of checking arguments: the value to run with, or the message the model reads. */
export type InputCheck = { ok: true; value: unknown } | { ok: false; message: string };

type Issue = { message?: unknown; path?: ReadonlyArray<unknown> };

function isZod4(schema: unknown): schema is z.ZodType {
  return typeof (schema as { safeParse?: unknown }).safeParse === 'function' && '_zod' in (schema as object);
}

function isStandard(schema: unknown): schema is StandardSchema {
  const props = (schema as { '~standard'?: { validate?: unknown } } | null)?.['~standard'];
  return typeof props?.validate === 'function';
}

/** Whether a value is one of the forms a tool's input may take (for the host-value checks). */
export function isToolInputSchema(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return isStandard(value) || (value as { type?: unknown }).type === 'object';
}

const checkers = new WeakMap<object, (value: unknown) => InputCheck>();

/** Checks a call's arguments against the tool's schema; a problem is one message naming each issue. */
export function checkToolInput(schema: ToolInputSchema, value: unknown): InputCheck {
  let check = checkers.get(schema);
  if (!check) {
    check = checkerOf(schema);
    checkers.set(schema, check);
  }
  try {
    return check(value);
  } catch (error) {
    // A validator that throws (a buggy refinement) refuses the call rather than crashing the batch.
    return { ok: false, message: `✖ the input schema threw: ${(error as Error)?.message ?? String(error)}` };
  }
}

function checkerOf(schema: ToolInputSchema): (value: unknown) => InputCheck {
  if (isZod4(schema))
    return (value) => {
      const parsed = schema.safeParse(value);
      return parsed.success
        ? { ok: true, value: parsed.data }
        : { ok: false, message: z.prettifyError(parsed.error) };
    };
  if (isStandard(schema))
    return (value) => {
      const result = schema['~standard'].validate(value) as { value?: unknown; issues?: readonly Issue[] };
      if (typeof (result as { then?: unknown }).then === 'function')
        return {
          ok: false,
          message: '✖ the input schema validates asynchronously, which agentchart does not support',
        };
      return result.issues
        ? { ok: false, message: issueLines(result.issues) }
        : { ok: true, value: result.value };
    };
  // Draft-07, the dialect the model is shown; short-circuit off, so every problem is named at once.
  const validator = new Validator(schema as never, '7', false);
  return (value) => {
    const result = validator.validate(value);
    if (result.valid) return { ok: true, value };
    // cfworker reports each failing keyword and its parents; the leaves are the ones that say what is wrong.
    const leaves = result.errors.filter(
      (error) =>
        !result.errors.some(
          (other) => other !== error && other.keywordLocation.startsWith(`${error.keywordLocation}/`),
        ),
    );
    return {
      ok: false,
      message: issueLines(
        leaves.map((error) => ({ message: error.error, path: pointerPath(error.instanceLocation) })),
      ),
    };
  };
}

function pointerPath(pointer: string): string[] {
  return pointer
    .replace(/^#\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** Issues in the shape zod's `prettifyError` gives, so every kind of schema reads the same to the model. */
export function issueLines(issues: readonly Issue[]): string {
  return issues
    .map((issue) => {
      const path = (issue.path ?? []).map((part) =>
        typeof part === 'object' && part !== null && 'key' in part ? (part as { key: unknown }).key : part,
      );
      const at = path.length > 0 ? `\n  → at ${path.map(String).join('.')}` : '';
      return `✖ ${String(issue.message ?? 'invalid')}${at}`;
    })
    .join('\n');
}

/**
 * The JSON Schema (draft-07, no `$schema`) the model is shown: `jsonSchema` when given, else the schema's
 * own description (zod 4, or a Standard Schema that implements `~standard.jsonSchema`), else the plain
 * JSON Schema itself. Throws when there is none, or when it does not describe an object.
 */
export function describeToolInput(
  schema: ToolInputSchema,
  jsonSchema?: JsonSchemaObject,
): Record<string, unknown> {
  const described = jsonSchema ?? ownJsonSchema(schema);
  const copy = { ...described } as Record<string, unknown>;
  delete copy.$schema;
  if (copy.type !== 'object')
    throw new Error(
      `tool arguments are a JSON object, but the schema describes ${JSON.stringify(copy.type ?? 'anything')}`,
    );
  return copy;
}

export function ownJsonSchema(schema: ToolInputSchema): Record<string, unknown> {
  if (isZod4(schema))
    return z.toJSONSchema(schema, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
  if (isStandard(schema)) {
    const props = schema['~standard'] as {
      vendor: string;
      jsonSchema?: { input?: (options: { target: string }) => unknown };
    };
    if (typeof props.jsonSchema?.input === 'function')
      return props.jsonSchema.input({ target: 'draft-07' }) as Record<string, unknown>;
    throw new Error(
      `a ${props.vendor} schema cannot describe itself as JSON Schema; pass it as jsonSchema too (for example from zod-to-json-schema or @valibot/to-json-schema)`,
    );
  }
  return schema as Record<string, unknown>;
}
