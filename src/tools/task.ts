import { z } from 'zod/v4';
import { must, parseHostValue, timeoutMs } from '../core/host-schema.ts';
import { notGrantedText } from './background-agents.ts';
import { defineTool, type SubagentResult, type Tool, type ToolOutput } from './define-tool.ts';
import { type OutputOptions, outputFields, parseOutputOptions } from './output-schema.ts';

/**
 * How the host defines the `task` tool. With `output`, every subagent it starts is a typed run: its final
 * answer must be JSON matching the schema (the host's, never the model's), and the caller reads that JSON.
 */
export type TaskToolOptions = OutputOptions & {
  /** How long one subagent may run before the call is stopped (default 30 minutes). */
  timeoutMs?: number;
};

const optionsSchema = z.strictObject({ timeoutMs: timeoutMs.optional(), ...outputFields }, must('an object'));

const taskInput = z.object({
  description: z.string().min(1).describe('A short label for the task, 3-5 words.'),
  prompt: z
    .string()
    .min(1)
    .describe('The complete instructions for the subagent. It sees nothing of this conversation.'),
  tools: z
    .array(z.string())
    .optional()
    .describe('Names of your tools the subagent may use (default: all of them).'),
  instructions: z
    .string()
    .optional()
    .describe('A system prompt for the subagent (default: the standard one).'),
  agent_type: z
    .string()
    .optional()
    .describe(
      'The kind of subagent to start: one of the agent types listed in your instructions (its own prompt ' +
        'and tools; leave instructions out). Default: a general subagent.',
    ),
});

/**
 * The input of the `task` tool recordings made before agent definitions offered (without `agent_type`):
 * a replay of one offers this, so the tools it describes to the model are the recorded ones.
 */
const legacyTaskInput = taskInput.omit({ agent_type: true });

export type TaskInput = z.output<typeof taskInput>;

/**
 * The `task` tool: delegates a self-contained piece of work to a subagent, a child agent in the same
 * agent system with its own session, and returns the child's final text. Several `task` calls in one
 * response run side by side. The child gets at most the caller's tools and permissions and cannot ask
 * the user; nesting and the child's steps are limited by the system's `subagents` options.
 *
 * @example
 * const system = createAgentSystem({ model, tools: [...codingTools(), taskTool()] });
 */
export function taskTool(given: TaskToolOptions = {}): Tool<TaskInput> {
  return buildTaskTool(given, taskInput);
}

/** The `task` tool as recordings from before `agent_type` described it (see `legacyTaskInput`). */
export function legacyTaskTool(given: TaskToolOptions = {}): Tool<TaskInput> {
  return buildTaskTool(given, legacyTaskInput as unknown as typeof taskInput);
}

/** Whether a recorded `task` tool spec (`session.start.config.tools[i]`) has no `agent_type`. */
export function isLegacyTaskSpec(spec: unknown): boolean {
  const properties = (spec as { inputSchema?: { properties?: Record<string, unknown> } } | null)?.inputSchema
    ?.properties;
  return properties !== undefined && !Object.hasOwn(properties, 'agent_type');
}

function buildTaskTool(given: TaskToolOptions, input: typeof taskInput): Tool<TaskInput> {
  const options = parseHostValue('taskTool', optionsSchema, given);
  // Checked now, so a schema that cannot be described fails here, not at the model's first call.
  const typed = parseOutputOptions('taskTool', given, ['timeoutMs']);
  const { output, jsonSchema, maxOutputRetries } = options as OutputOptions;
  const outputOptions = typed ? { output, jsonSchema, maxOutputRetries } : {};
  const answers = typed
    ? ` Its final answer is JSON matching this schema: ${JSON.stringify(typed.spec.schema)}`
    : '';
  return defineTool({
    name: 'task',
    description:
      'Start a subagent to carry out a self-contained task (research, a focused change, a check) and get ' +
      'its final answer back. The subagent starts with an empty conversation: put everything it needs ' +
      `in \`prompt\`. Several task calls in one response run in parallel.${answers}`,
    input,
    access: 'none',
    concurrencySafe: true,
    timeoutMs: options.timeoutMs ?? 30 * 60_000,
    run: async (input, context): Promise<ToolOutput> => {
      if (!context.spawnSubagent) {
        return {
          content: 'The task tool cannot start subagents here: it must run inside an agent system.',
          isError: true,
        };
      }
      if (input.agent_type !== undefined && input.instructions !== undefined)
        return {
          content: 'Give agent_type or instructions, not both: an agent type brings its own instructions.',
          isError: true,
        };
      const result = await context.spawnSubagent({
        ...withoutUndefined(outputOptions),
        description: input.description,
        prompt: input.prompt,
        ...(input.tools !== undefined ? { tools: input.tools } : {}),
        ...(input.instructions !== undefined ? { instructions: input.instructions } : {}),
        ...(input.agent_type !== undefined ? { agentType: input.agent_type } : {}),
      });
      return taskOutput(result);
    },
  });
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}

/** What the model reads: the child's final text, with the stop reason when the child did not complete. */
export function taskOutput(result: SubagentResult): ToolOutput {
  const answer = result.text.length > 0 ? result.text : '(the subagent gave no final text)';
  const text = answer + notGrantedText(result.notGranted);
  if (result.reason === 'completed') return text;
  return {
    content: `The subagent (session ${result.sessionId}) stopped before completing: ${result.reason}.\n${text}`,
    isError: true,
  };
}
