// The tool list a host hands to createAgentSystem / createAgent / runJob: tools as `defineTool` makes them,
// kept as the very objects passed, names unique.
import { z } from 'zod/v4';
import { hostFunction, intact, must, plainIssue, timeoutMs } from '../core/host-schema.ts';
import type { AnyTool } from './define-tool.ts';
import { access, concurrencySafe, toolInputSchema, toolName } from './tool-schema.ts';

const toolShape = z.object({
  name: toolName,
  description: z.string(must('a string')),
  input: toolInputSchema,
  access,
  concurrencySafe,
  timeoutMs: timeoutMs.optional(),
  run: hostFunction,
});

/** A list of tools as `defineTool` makes them, names unique. */
export const toolListSchema = z
  .array(
    intact<AnyTool>('a tool made by defineTool', toolShape),
    must('an array of tools made by defineTool'),
  )
  .superRefine((tools, context) => {
    const seen = new Map<string, number>();
    tools.forEach((tool, index) => {
      const name = (tool as { name?: unknown } | undefined)?.name;
      if (typeof name !== 'string') return;
      const first = seen.get(name);
      if (first === undefined) seen.set(name, index);
      else context.addIssue(plainIssue(`"${name}" is taken by tools[${first}]`, [index, 'name']));
    });
  });
