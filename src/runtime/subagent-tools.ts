// The tools as an agent system runs them: each one hands its calls a `spawnSubagent` capability, and the
// background agents capability once the system offers it.
import { extended } from '../core/extended.ts';
import type { BackgroundAgentsPort } from '../tools/background-port.ts';
import type { AnyTool, SubagentRequest, SubagentResult, ToolContext } from '../tools/define-tool.ts';

/** One tool call asking for a subagent (see `AgentTree.spawn`). */
export type SpawnCall = { parentId: string; callId: string; signal: AbortSignal; request: SubagentRequest };

/** Gives a tool call of `agentId` the background agents capability (`spawn_agent` and the others). */
export type BackgroundFor = (call: {
  agentId: string;
  callId: string;
  signal: AbortSignal;
}) => BackgroundAgentsPort;

/**
 * Wraps tools so that their calls can start subagents through `spawn`. A tool is wrapped once, and a
 * list once (a system's tools): every agent given that list gets the same array, so they share what it
 * offers (agent-offer.ts).
 */
export class SubagentTools {
  private readonly wrapped = new WeakMap<AnyTool, AnyTool>();
  private readonly lists = new WeakMap<readonly AnyTool[], readonly AnyTool[]>();
  private background: BackgroundFor | undefined;

  constructor(private readonly spawn: (call: SpawnCall) => Promise<SubagentResult>) {}

  /** Tool calls get the background agents capability from now on (the system wires it once). */
  offerBackground(background: BackgroundFor): void {
    this.background = background;
  }

  /** The tools as the runtime runs them: the same tools, with `spawnSubagent` in their context. */
  wrapAll(tools: readonly AnyTool[]): readonly AnyTool[] {
    let wrapped = this.lists.get(tools);
    if (!wrapped) {
      wrapped = tools.map((tool) => this.wrap(tool));
      this.lists.set(tools, wrapped);
    }
    return wrapped;
  }

  private wrap(tool: AnyTool): AnyTool {
    let wrapped = this.wrapped.get(tool);
    if (!wrapped) {
      wrapped = {
        name: tool.name,
        description: tool.description,
        input: tool.input,
        ...(tool.inputSchema !== undefined ? { inputSchema: tool.inputSchema } : {}),
        ...(tool.jsonSchema ? { jsonSchema: tool.jsonSchema } : {}),
        access: tool.access,
        concurrencySafe: tool.concurrencySafe,
        timeoutMs: tool.timeoutMs,
        run: (input, context) => tool.run(input, this.contextFor(context)),
      };
      this.wrapped.set(tool, wrapped);
    }
    return wrapped;
  }

  private contextFor(context: ToolContext): ToolContext {
    const { agentId, callId, signal } = context;
    const spawnSubagent = (request: SubagentRequest) =>
      this.spawn({ parentId: agentId, callId, signal, request });
    if (!this.background) return extended(context, { spawnSubagent });
    return extended(context, {
      spawnSubagent,
      backgroundAgents: this.background({ agentId, callId, signal }),
    });
  }
}
