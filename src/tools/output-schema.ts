// The `output` of a typed run (`agent.run(prompt, { output })`, a job task, a subagent's `taskTool`): the
// schema a turn's final answer must match, in any form a tool's input may take, parsed once where the host
// hands it in. It gives the runtime two things: the JSON Schema the model is asked for (logged), and the
// check that turns the answer into the typed value.
import { z } from 'zod/v4';
import { count, must, parseHostValue, plainIssue } from '../core/host-schema.ts';
import type { OutputSpec } from '../session/types.ts';
import {
  checkToolInput,
  issueLines,
  type JsonSchemaObject,
  ownJsonSchema,
  type StandardSchema,
  type ToolInputSchema,
} from './tool-input.ts';

/**
 * What `output` takes: a Standard Schema that can describe itself as JSON Schema (zod 4, or any library
 * implementing Standard JSON Schema), one that cannot (zod 3, valibot) with `jsonSchema` beside it, or a
 * plain JSON Schema. Either way it must describe a JSON object: the vendors' structured outputs ask for one.
 */
export type OutputSchema<Output = unknown> = StandardSchema<Output> | JsonSchemaObject;

/** The value a run's `output` schema gives: its Standard Schema output type, an object for JSON Schema. */
export type OutputOf<Schema> = [Schema] extends [never]
  ? unknown
  : Schema extends StandardSchema
    ? NonNullable<Schema['~standard']['types']>['output']
    : Schema extends JsonSchemaObject
      ? Record<string, unknown>
      : unknown;

/**
 * How a run asks for typed output.
 *
 * @example
 * const result = await agent.run('List the failing tests', { output: z.object({ tests: z.array(z.string()) }) });
 * if (result.reason === 'completed') console.log(result.output.tests);
 */
export type OutputOptions<Schema extends OutputSchema = OutputSchema> = {
  /** The schema the final answer must match; the run's `output` is what it validates to. */
  output?: Schema;
  /** The JSON Schema the model is shown, for a Standard Schema that cannot describe itself (zod 3, valibot). */
  jsonSchema?: JsonSchemaObject;
  /** How many times an answer that fails its check is fed back to the model (default 2). */
  maxOutputRetries?: number;
};

/** The default of `maxOutputRetries`: a third answer, after two that were told what was wrong. */
export const defaultMaxOutputRetries = 2;

/** How a final answer fared: the value the schema gave, or why it was refused (for the model to read). */
export type OutputCheck = { ok: true; value: unknown } | { ok: false; error: string };

/** A parsed `output`: what the log records of it, and the check of an answer (never rejects). */
export type TypedOutput = { spec: OutputSpec; validate: (value: unknown) => Promise<OutputCheck> };

function isStandard(value: unknown): value is StandardSchema {
  const props = (value as { '~standard'?: { validate?: unknown } } | null)?.['~standard'];
  return typeof props?.validate === 'function';
}

const forms =
  'a Standard Schema (a zod 4 schema such as z.object({...}), or valibot, arktype…) or a JSON Schema of an object ({ type: "object", ... })';

const schemaValue = z.custom<OutputSchema>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    (isStandard(value) || (value as { type?: unknown }).type === 'object'),
  must(forms),
);
const jsonObject = z.custom<JsonSchemaObject>(
  (value) => typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'object',
  must('a JSON Schema of an object ({ type: "object", ... })'),
);

/** The output fields, as a run, a job task or `taskTool` takes them beside its own. */
export const outputFields = {
  output: schemaValue.optional(),
  jsonSchema: jsonObject.optional(),
  maxOutputRetries: count.optional(),
};

/** The JSON Schema the model is asked for: `jsonSchema`, else the schema's own, checked to be an object's. */
function describedSchema(options: OutputOptions): Record<string, unknown> | string {
  const { output, jsonSchema } = options;
  if (jsonSchema === undefined && isStandard(output) && !describesItself(output)) {
    const vendor = String(output['~standard'].vendor);
    return (
      `cannot describe itself as JSON Schema (a ${vendor} schema without Standard JSON Schema); pass its ` +
      'JSON Schema as jsonSchema too (zod-to-json-schema for zod 3, @valibot/to-json-schema for valibot), or use a zod 4 schema'
    );
  }
  let described: Record<string, unknown>;
  try {
    described = { ...(jsonSchema ?? ownJsonSchema(output as ToolInputSchema)) };
  } catch (error) {
    return `could not be described as JSON Schema: ${error instanceof Error ? error.message : String(error)}`;
  }
  delete described.$schema;
  if (described.type !== 'object')
    return (
      `must describe a JSON object (the vendors' structured outputs ask for one), but its JSON Schema ` +
      `describes ${JSON.stringify(described.type ?? 'anything')}; wrap it in an object, e.g. z.object({ value: … })`
    );
  return described;
}

/** zod 4 describes itself (`z.toJSONSchema`), and so does a library that implements Standard JSON Schema. */
function describesItself(schema: StandardSchema): boolean {
  const props = schema['~standard'] as { jsonSchema?: { input?: unknown } };
  return '_zod' in schema || typeof props.jsonSchema?.input === 'function';
}

/** The output options checked as a whole: the schema must be one the model can be shown. */
export const outputOptionsSchema = z
  .strictObject(outputFields, must('an object'))
  .superRefine((options, context) => {
    if (options.output === undefined) {
      for (const key of ['jsonSchema', 'maxOutputRetries'] as const)
        if (options[key] !== undefined) context.addIssue(plainIssue('only goes with output', [key]));
      return;
    }
    const described = describedSchema(options);
    if (typeof described === 'string') context.addIssue(plainIssue(described, ['output']));
  });

/**
 * Parses the output options of `call` (a ConfigError names what is wrong); `undefined` for a run that asks
 * for free text. `extra` are the caller's own keys of the same object, checked elsewhere.
 */
export function parseOutputOptions(
  call: string,
  given: unknown,
  extra: readonly string[] = [],
): TypedOutput | undefined {
  const picked = pick(given, extra);
  const options = parseHostValue(call, outputOptionsSchema, picked) as OutputOptions;
  if (options.output === undefined) return undefined;
  const schema = describedSchema(options) as Record<string, unknown>;
  const maxRetries = options.maxOutputRetries ?? defaultMaxOutputRetries;
  return { spec: { schema, maxRetries }, validate: validatorOf(options.output) };
}

/**
 * The output fields of a larger object (a job task, a subagent request), or `undefined` when it asks for
 * free text; what is left out is left out, not set to `undefined`.
 */
export function outputOptionsOf(from: OutputOptions): OutputOptions | undefined {
  const { output, jsonSchema, maxOutputRetries } = from;
  if (output === undefined && jsonSchema === undefined && maxOutputRetries === undefined) return undefined;
  return {
    ...(output !== undefined ? { output } : {}),
    ...(jsonSchema !== undefined ? { jsonSchema } : {}),
    ...(maxOutputRetries !== undefined ? { maxOutputRetries } : {}),
  };
}

/** The object without the keys another parser owns (a job task's prompt, a run's own options). */
function pick(given: unknown, extra: readonly string[]): unknown {
  if (typeof given !== 'object' || given === null || extra.length === 0) return given;
  return Object.fromEntries(Object.entries(given).filter(([key]) => !extra.includes(key)));
}

/** Checks a parsed answer with `schema`; a throw or a rejection of the validator refuses the answer. */
export function validatorOf(schema: OutputSchema): (value: unknown) => Promise<OutputCheck> {
  return async (value) => {
    try {
      if (!isStandard(schema)) {
        const checked = checkToolInput(schema, value);
        return checked.ok ? checked : { ok: false, error: mismatch(checked.message) };
      }
      const result = (await schema['~standard'].validate(value)) as {
        value?: unknown;
        issues?: readonly { message?: unknown; path?: readonly unknown[] }[];
      };
      if (result.issues) return { ok: false, error: mismatch(issueLines(result.issues)) };
      return { ok: true, value: result.value };
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      return { ok: false, error: `the output schema could not check it (it threw: ${why})` };
    }
  };
}

const mismatch = (issues: string) => `the answer does not match the schema:\n${issues}`;
