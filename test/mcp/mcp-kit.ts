// What the MCP tests share: an agent system with MCP servers and a scripted model, the live events of a
// run, and the tool results of a log.
import type { LiveEvent } from '../../src/actors/live-event.ts';
import { SimulatedClock } from '../../src/core/clock.ts';
import type { McpServers } from '../../src/mcp/server-config.ts';
import { type ScriptStep, scripted } from '../../src/providers/scripted.ts';
import type { Agent } from '../../src/runtime/agent-handle.ts';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { AgentSystemOptions } from '../../src/runtime/options.ts';
import { isEvent, type LogEvent } from '../../src/session/types.ts';
import { tempDir } from '../support/mcp-servers.ts';

export type McpRig = {
  system: AgentSystem;
  agent: Agent;
  model: ReturnType<typeof scripted>;
  clock: SimulatedClock;
  live: LiveEvent[];
};

/** A system with `servers`, one agent `a`, and every live event of that agent collected. */
export async function mcpRig(
  servers: McpServers,
  script: ScriptStep[],
  options: Partial<AgentSystemOptions> = {},
): Promise<McpRig> {
  const clock = new SimulatedClock(1_000);
  let id = 0;
  const model = scripted(script, { clock });
  const system = createAgentSystem({
    model,
    mcpServers: servers,
    clock,
    ids: () => `id${++id}`,
    cwd: await tempDir('mcp-cwd'),
    projectInstructions: false,
    permissionMode: 'bypass',
    ...options,
  });
  const agent = await system.createAgent({ id: 'a' });
  const live: LiveEvent[] = [];
  void (async () => {
    for await (const event of agent.events()) live.push(event);
  })();
  return { system, agent, model, clock, live };
}

/** `{ callId: [outcome, content] }` for every tool result in the log. */
export function results(log: readonly LogEvent[]): Record<string, [string, string]> {
  const out: Record<string, [string, string]> = {};
  for (const event of log)
    if (isEvent(event, 'tool.result')) out[event.data.callId] = [event.data.outcome, event.data.content];
  return out;
}

/** Resolves once `check` holds, polling real time (the servers are real processes). */
export async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 10));
  }
}
