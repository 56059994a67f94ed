import { z } from 'zod/v4';
import { must, nonEmptyString, parseHostValue, positiveInteger, timeoutMs } from '../core/host-schema.ts';
import { ConfigError } from '../errors/config-error.ts';
import type { OutputSpec } from '../session/types.ts';
import type {
  BackgroundAgentStatus,
  BackgroundAgentsPort,
  BackgroundWaitOutcome,
} from './background-port.ts';
import { type AnyTool, defineTool, type ToolContext, type ToolOutput } from './define-tool.ts';
import { type OutputOptions, outputFields, outputOptionsOf, parseOutputOptions } from './output-schema.ts';
import { type SupervisionPolicy, supervisionPolicySchema, supervisionSpecOf } from './supervision-option.ts';

/**
 * A kind of background agent the model may start by name: what it is for, its prompt and its tools. With
 * `output` (and `jsonSchema`, `maxOutputRetries`, as for a typed run), its run is typed: the host's schema,
 * never the model's; its final answer, the result its parent reads, is JSON matching it, and its host reads
 * the value in `child.result`'s `output`.
 */
export type AgentType = OutputOptions & {
  /** What this kind of agent is for, shown to the model in `spawn_agent`'s description. */
  description: string;
  /** Its system prompt (default: the runtime's default instructions). */
  instructions?: string;
  /** Names of the caller's tools it gets (default: all of them; `send_message` always). */
  tools?: string[];
  /** How a child of this type is restarted when it fails (default: the tools' `supervision`). */
  supervision?: SupervisionPolicy;
  /** `'worktree'`: each child works in a git worktree of its own (see `CreateAgentOptions.isolation`). */
  isolation?: 'worktree';
};

export type BackgroundAgentToolsOptions = {
  /** Named kinds of agents `spawn_agent` can start (`agent_type`); without it every child is general. */
  agentTypes?: Record<string, AgentType>;
  /** How many background children one agent may have running at once (default 8). */
  maxRunning?: number;
  /** The longest `wait_agents` may wait, and its default (default 10 minutes). */
  maxWaitMs?: number;
  /** How every child is restarted when it fails, unless its agent type says otherwise (default: never). */
  supervision?: SupervisionPolicy;
};

const agentTypeSchema = z.strictObject(
  {
    description: nonEmptyString,
    instructions: z.string(must('a string')).optional(),
    tools: z.array(nonEmptyString, must('an array of tool names')).optional(),
    supervision: supervisionPolicySchema.optional(),
    isolation: z.literal('worktree', must('"worktree"')).optional(),
    ...outputFields,
  },
  must('an object'),
);
const optionsSchema = z.strictObject(
  {
    agentTypes: z.record(nonEmptyString, agentTypeSchema, must('an object of agent types')).optional(),
    maxRunning: positiveInteger.optional(),
    maxWaitMs: timeoutMs.optional(),
    supervision: supervisionPolicySchema.optional(),
  },
  must('an object'),
);

const spawnInput = z.object({
  agent_type: z.string().optional().describe('The kind of agent to start (see the list above).'),
  prompt: z
    .string()
    .min(1)
    .describe('The complete instructions for the agent. It sees nothing of this conversation.'),
  description: z.string().optional().describe('A short label for the agent, 3-5 words.'),
  wait: z
    .boolean()
    .optional()
    .describe('Default true: your turn does not end until this agent has reported. False: do not wait.'),
});
const sendInput = z.object({
  to: z
    .string()
    .min(1)
    .describe('The id of one of your agents, or "parent" to write to the agent that started you.'),
  text: z.string().min(1).describe('The message.'),
});
const waitInput = z.object({
  ids: z.array(z.string()).optional().describe('The agents to wait for (default: all of yours that run).'),
  timeout_ms: z.number().int().positive().optional().describe('The longest to wait, in milliseconds.'),
});
const idInput = z.object({ id: z.string().min(1).describe('The id of one of your agents.') });

/**
 * The tools of background agents: `spawn_agent` starts a child agent that works while the caller goes on
 * (it returns the child's id at once), `send_message` writes to a child or, from a child, to `parent`,
 * `wait_agents` waits for mail or for children to finish, `stop_agent` stops a child, `list_agents` lists
 * them. A child's final result and every message arrive in the recipient's inbox, read at its next step;
 * a turn does not end while children it started (without `wait: false`) have not reported. A child gets
 * at most the caller's tools and permissions (and always `send_message`); nesting and its steps are limited
 * by the system's `subagents` options.
 *
 * @example
 * const system = createAgentSystem({ model, tools: [...codingTools(), ...backgroundAgentTools()] });
 */
export function backgroundAgentTools(given: BackgroundAgentToolsOptions = {}): AnyTool[] {
  const options = parseHostValue('backgroundAgentTools', optionsSchema, given);
  const agentTypes = options.agentTypes ?? {};
  const maxRunning = options.maxRunning ?? 8;
  const maxWaitMs = options.maxWaitMs ?? 10 * 60_000;
  const typeList = Object.entries(agentTypes)
    .map(([name, type]) => `- ${name}: ${type.description}${answers(typedOutput(name, type))}`)
    .join('\n');
  const spawn = defineTool({
    name: 'spawn_agent',
    description:
      'Start an agent that works in the background while you go on; returns its id at once. Its final ' +
      'answer arrives in your inbox as a message, and so does anything it sends you. The agent starts with ' +
      'an empty conversation: put everything it needs in `prompt`.' +
      (typeList ? `\nAgent types:\n${typeList}` : ''),
    input: spawnInput,
    access: 'none',
    concurrencySafe: true,
    timeoutMs: 5 * 60_000,
    run: (input, context) =>
      withAgents(context, async (agents) => {
        // The host's own types win; any other name is an agent definition's (the runtime refuses an unknown one).
        const type = input.agent_type === undefined ? undefined : ownType(agentTypes, input.agent_type);
        const definition =
          input.agent_type !== undefined && type === undefined ? input.agent_type : undefined;
        const wait = input.wait ?? true;
        const { id, notGranted } = await agents.spawn({
          prompt: input.prompt,
          description: input.description ?? input.prompt.split('\n')[0]!.slice(0, 60),
          wait,
          maxRunning,
          ...(input.agent_type !== undefined ? { agentType: input.agent_type } : {}),
          ...(definition !== undefined ? { agentDefinition: definition } : {}),
          ...(type?.tools !== undefined ? { tools: type.tools } : {}),
          ...(type?.instructions !== undefined ? { instructions: type.instructions } : {}),
          ...(type?.isolation !== undefined ? { isolation: type.isolation } : {}),
          ...(type ? outputOptionsOf(type) : {}),
          ...supervisionOf(type?.supervision ?? options.supervision),
        });
        const started = wait
          ? `Started agent ${id}. It works in the background; its result will arrive as a message, and your turn will not end before it does.`
          : `Started agent ${id}. It works in the background; its result will arrive as a message whenever it is done.`;
        return started + notGrantedText(notGranted);
      }),
  });
  const send = defineTool({
    name: 'send_message',
    description:
      'Send a message to one of your background agents (by id), or to "parent": the agent that started ' +
      'you. It is read at the recipient’s next step.',
    input: sendInput,
    access: 'none',
    concurrencySafe: true,
    run: (input, context) =>
      withAgents(context, async (agents) => {
        const { id, to } = await agents.send(input.to, input.text);
        return `Message ${id} delivered to ${to}.`;
      }),
  });
  const wait = defineTool({
    name: 'wait_agents',
    description:
      'Wait until one of your agents (default: all that run) sends you something or finishes, or until ' +
      '`timeout_ms` passes. Use it when you have nothing else to do; what they sent is shown to you next.',
    input: waitInput,
    access: 'none',
    // A barrier: the calls before it in a response (spawns, messages) are done before it waits.
    concurrencySafe: false,
    timeoutMs: maxWaitMs + 60_000,
    run: (input, context) =>
      withAgents(context, async (agents) => {
        const limit = Math.min(input.timeout_ms ?? maxWaitMs, maxWaitMs);
        return waitText(await agents.wait(input.ids, limit));
      }),
  });
  const stop = defineTool({
    name: 'stop_agent',
    description: 'Stop one of your background agents; it is cancelled and sends no result.',
    input: idInput,
    access: 'none',
    concurrencySafe: true,
    run: (input, context) =>
      withAgents(context, async (agents) => {
        const { agent, stopped } = await agents.stop(input.id);
        return stopped
          ? `Stopped agent ${agent.id}.`
          : `Agent ${agent.id} had already ${statusText(agent)}; nothing to stop.`;
      }),
  });
  const list = defineTool({
    name: 'list_agents',
    description: 'List your background agents (and your parent, if you have one) with their state.',
    input: z.object({}),
    access: 'none',
    concurrencySafe: true,
    run: (_input, context) =>
      withAgents(context, async (agents) => {
        const all = agents.list();
        if (all.length === 0) return 'You have no background agents.';
        return all.map(listLine).join('\n');
      }),
  });
  hostAgentTypes.set(spawn, Object.keys(agentTypes));
  return [spawn, send, wait, stop, list];
}

/** The agent types each `spawn_agent` tool defines itself, by tool (read when definition files are). */
const hostAgentTypes = new WeakMap<AnyTool, readonly string[]>();

/** The agent types the host's `spawn_agent` tools among `tools` define: a definition file of such a name is skipped. */
export function agentTypeNamesOf(tools: readonly AnyTool[]): string[] {
  return tools.flatMap((tool) => hostAgentTypes.get(tool) ?? []);
}

/** The names of the background agents tools, in the order `backgroundAgentTools` returns them. */
export const backgroundToolNames = [
  'spawn_agent',
  'send_message',
  'wait_agents',
  'stop_agent',
  'list_agents',
] as const;

/** The host's agent type `name` (own keys only: `constructor` names no type). */
function ownType(agentTypes: Record<string, AgentType>, name: string): AgentType | undefined {
  return Object.hasOwn(agentTypes, name) ? agentTypes[name] : undefined;
}

/** What the caller is told of the tools a definition named that it lacks (a definition only narrows). */
export function notGrantedText(notGranted: readonly string[] | undefined): string {
  if (notGranted === undefined || notGranted.length === 0) return '';
  return `\nNot given to the agent (its definition names them, and you do not have them): ${notGranted.join(', ')}.`;
}

/** The spawn request's supervision: none for `never`. */
function supervisionOf(policy: SupervisionPolicy | undefined) {
  const supervision = supervisionSpecOf(policy);
  return supervision ? { supervision } : {};
}

/** An agent type's output (checked now: a schema that cannot be described fails here, not at a spawn). */
function typedOutput(name: string, type: AgentType): OutputSpec | undefined {
  const call = `backgroundAgentTools.agentTypes.${name}`;
  return parseOutputOptions(call, type, ['description', 'instructions', 'tools', 'supervision', 'isolation'])
    ?.spec;
}

/** What the model is told a typed agent type answers. */
function answers(output: OutputSpec | undefined): string {
  return output ? ` Its final answer is JSON matching this schema: ${JSON.stringify(output.schema)}` : '';
}

/** Runs `work` with the call's capability; what it refuses (a `ConfigError`) is an error result the model reads. */
async function withAgents(
  context: ToolContext,
  work: (agents: BackgroundAgentsPort) => Promise<ToolOutput>,
): Promise<ToolOutput> {
  const agents = context.backgroundAgents;
  if (!agents)
    return {
      content: 'Background agents cannot run here: the tool must run inside an agent system.',
      isError: true,
    };
  try {
    return await work(agents);
  } catch (error) {
    if (ConfigError.isInstance(error)) return { content: error.message, isError: true };
    throw error;
  }
}

function statusText(agent: BackgroundAgentStatus): string {
  if (agent.status === 'running') return 'running';
  return agent.status === 'finished' ? `finished (${agent.reason ?? 'completed'})` : 'been stopped';
}

function listLine(agent: BackgroundAgentStatus): string {
  if (agent.relation === 'parent') return `parent (${agent.id}): the agent that started you`;
  const type = agent.agentType !== undefined ? ` [${agent.agentType}]` : '';
  const label = agent.description !== undefined ? ` ${JSON.stringify(agent.description)}` : '';
  return `${agent.id}${type}${label}: ${statusText(agent)}`;
}

function waitText(outcome: BackgroundWaitOutcome): string {
  const lines = outcome.agents.map((agent) =>
    agent.relation === 'parent' ? `parent (${agent.id})` : `${agent.id}: ${statusText(agent)}`,
  );
  if (outcome.arrived.length > 0)
    lines.push(`New mail from ${[...new Set(outcome.arrived)].join(', ')}: it is shown to you next.`);
  else if (outcome.timedOut) lines.push('Nothing arrived before the timeout.');
  return lines.join('\n');
}
