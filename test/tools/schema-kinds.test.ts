// defineTool takes a zod 4 schema, any other Standard Schema (zod 3 and valibot here, the real packages) or
// a plain JSON Schema: each one checks the model's arguments and describes them to the model.
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import { createAgentSystem, defineTool } from '../../src/index.ts';
import type { ModelRequest } from '../../src/providers/types.ts';
import { scripted } from '../../src/testing.ts';
import { type AnyTool, toolSpec } from '../../src/tools/define-tool.ts';
import type { JsonSchemaObject } from '../../src/tools/tool-input.ts';

// What the model is shown for { a: number, b: number } in every form.
const described: JsonSchemaObject = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
  additionalProperties: false,
};

const add = (input: { a: number; b: number }) => Promise.resolve(String(input.a + input.b));

const tools = {
  zod4: defineTool({
    name: 'add',
    description: 'Adds.',
    access: 'none',
    input: z.strictObject({ a: z.number(), b: z.number() }),
    run: add,
  }),
  zod3: defineTool({
    name: 'add',
    description: 'Adds.',
    access: 'none',
    input: z3.object({ a: z3.number(), b: z3.number() }).strict(),
    jsonSchema: described,
    run: add,
  }),
  valibot: defineTool({
    name: 'add',
    description: 'Adds.',
    access: 'none',
    input: v.strictObject({ a: v.number(), b: v.number() }),
    jsonSchema: described,
    run: add,
  }),
  jsonSchema: defineTool({
    name: 'add',
    description: 'Adds.',
    access: 'none',
    input: described,
    run: async (input) => add(input as { a: number; b: number }),
  }),
};

/** Runs one turn that calls `add` with `input`, and gives the tool result and the tools the model saw. */
async function callAdd(tool: AnyTool, input: unknown) {
  const seen: ModelRequest[] = [];
  const model = scripted([
    (request) => {
      seen.push(request);
      return { toolCalls: [{ name: 'add', input }] };
    },
    { text: 'done' },
  ]);
  const system = createAgentSystem({
    model,
    tools: [tool],
    permissionMode: 'bypass',
    projectInstructions: false,
  });
  try {
    const agent = await system.createAgent();
    await agent.run('add');
    const result = agent.log().find((event) => event.type === 'tool.result');
    return { result: result?.data as { outcome: string; content: string }, tools: seen[0]?.tools };
  } finally {
    await system.dispose();
  }
}

describe('defineTool with each kind of schema', () => {
  for (const [kind, tool] of Object.entries(tools)) {
    it(`${kind}: runs valid arguments, shows the model the JSON Schema, refuses bad ones by field`, async () => {
      const good = await callAdd(tool, { a: 2, b: 3 });
      expect(good.result).toMatchObject({ outcome: 'ok', content: '5' });
      expect(good.tools).toEqual([{ name: 'add', description: 'Adds.', inputSchema: described }]);

      const bad = await callAdd(tool, { a: 'two', b: 3 });
      expect(bad.result.outcome).toBe('error');
      expect(bad.result.content).toMatch(/^Invalid arguments for add:\n✖ .+\n {2}→ at a$/);
    });
  }

  it('names every problem of a JSON Schema call, each with its field', async () => {
    const { result } = await callAdd(tools.jsonSchema, { a: 'x', c: 1 });
    expect(result.outcome).toBe('error');
    expect(result.content).toContain('→ at a');
    expect(result.content).toContain('"b"');
    expect(result.content).toContain('"c"');
  });

  it('refuses a Standard Schema that cannot describe itself, unless jsonSchema is given', () => {
    expect(() =>
      defineTool({
        name: 'v',
        description: 'd',
        access: 'none',
        input: v.object({ a: v.number() }),
        run: async () => 'x',
      }),
    ).toThrow(
      'defineTool("v"): input cannot be described to the model: a valibot schema cannot describe itself as JSON Schema; pass it as jsonSchema too',
    );
  });

  it('refuses schemas that do not describe an object, and values that are no schema', () => {
    const define = (input: unknown, jsonSchema?: unknown) => () =>
      defineTool({
        name: 't',
        description: 'd',
        access: 'none',
        input,
        jsonSchema,
        run: async () => 'x',
      } as never);
    expect(define(z.string())).toThrow(/input must be a zod object schema/);
    expect(define({ type: 'string' })).toThrow(/input must be a zod object schema/);
    expect(define(v.string(), { type: 'string' })).toThrow(/jsonSchema must be a JSON Schema of an object/);
    expect(define(42)).toThrow(/input must be/);
  });

  it('types run() from the schema: zod 3 and valibot outputs, an object for JSON Schema', () => {
    const typed = defineTool({
      name: 't',
      description: 'd',
      access: 'none',
      input: v.object({ n: v.number() }),
      jsonSchema: { type: 'object', properties: { n: { type: 'number' } } },
      run: async ({ n }) => n.toFixed(1),
    });
    expect(toolSpec(typed).inputSchema).toEqual({ type: 'object', properties: { n: { type: 'number' } } });
  });
});
