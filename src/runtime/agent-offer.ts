import { fnv1a } from '../core/hash.ts';
import { ConfigError } from '../errors/config-error.ts';
import { messageOf } from '../errors/describe-value.ts';
import type { ToolsUpdate } from '../machines/turn-types.ts';
import type { McpToolSource } from '../mcp/tool-source.ts';
import type { AgentPermissionGate } from '../permissions/gate.ts';
import { type PermissionMode, toolsOfferedInMode } from '../permissions/modes.ts';
import { planAcceptanceTool } from '../permissions/plan-mode.ts';
import type { ToolSpec } from '../providers/types.ts';
import type { RecordedResults } from '../recorded/recorded-results.ts';
import type { SessionLog } from '../session/session-log.ts';
import { type AnyTool, toolSpec } from '../tools/define-tool.ts';

/** Where an agent's tools come from, and what decides which of them it is offered now. */
export type OfferSources = {
  /** Its own tools and its skills' tools, as given (read at every offer: skills load during setup). */
  own: () => readonly AnyTool[];
  /** The MCP servers it started (their tool lists change while it lives). */
  mcp?: McpToolSource | undefined;
  /** Answers every call with the recorded result instead of running the tool (a replay). */
  toolResults?: RecordedResults | undefined;
  gate: AgentPermissionGate;
  /** A subagent has no plan to put to the host: it is never offered `exit_plan_mode`. */
  isChild: boolean;
  log: () => SessionLog;
};

/**
 * What one agent offers the model: its tools, as the runtime runs them and as the model reads them, and
 * its system prompt with the hash the log records, which tells a changed prompt or tool list apart.
 */
export class AgentOffer {
  readonly tools = new Map<string, AnyTool>();
  specs: ToolSpec[] = [];
  system = '';
  systemHash = '';
  /** The system prompt without the environment block (what session.start records). */
  private baseSystem = '';
  private offeredMode: PermissionMode | undefined;
  /**
   * Built once per agent, when it is first in plan mode (accepting its plan switches this agent's mode):
   * building a tool describes its input as JSON Schema, ~7 % of a `createAgent` + `dispose`.
   */
  private exitPlanModeTool: AnyTool | undefined;
  private projectOptionsMemo: { system: string; tools: ToolSpec[] } | undefined;
  /** Set when the specs are a shared offer's (worked out once for all its agents). */
  private shared: SharedOffer | undefined;

  constructor(private readonly sources: OfferSources) {}

  /**
   * Offers the tools the permission mode allows now (the mode a plan or the host switched to, see
   * `mode.changed`); in plan mode, `exit_plan_mode` too. Throws a `ConfigError` when two share a name.
   */
  offer(): void {
    const { sources } = this;
    const mode = sources.gate.mode;
    const given = sources.own();
    const mcpTools = sources.mcp?.tools() ?? [];
    const recorded = sources.toolResults;
    const planTool = mode === 'plan' && !sources.isChild;
    // Agents that offer the very same list (a system's tools, no MCP, no recording, not planning) share
    // what it offers: the list, the specs the model reads, and their JSON for the system hash.
    const shared = mcpTools.length === 0 && !recorded && !planTool ? sharedOffer(given, mode) : undefined;
    let offered: readonly AnyTool[];
    if (shared) offered = shared.tools;
    else {
      const own = mcpTools.length === 0 ? given : [...given, ...mcpTools];
      const all = recorded ? own.map((tool) => recorded.wrap(tool, sources.log)) : own;
      const list = toolsOfferedInMode(all, mode);
      if (planTool) {
        this.exitPlanModeTool ??= planAcceptanceTool(sources.gate, sources.log);
        list.push(this.exitPlanModeTool);
      }
      offered = list;
    }
    this.offeredMode = mode;
    this.tools.clear();
    for (const tool of offered) {
      if (this.tools.has(tool.name)) throw new ConfigError(`two tools are named "${tool.name}"`);
      this.tools.set(tool.name, tool);
    }
    this.specs = shared ? shared.specs : offered.map(describeTool);
    this.shared = shared;
  }

  /** Takes back every tool offered (the tools stage's undo). */
  withdraw(): void {
    this.tools.clear();
    this.specs = [];
    this.shared = undefined;
  }

  /** Sets the prompt the session started with; `environment` is the block that follows it (may be ''). */
  setSystem(base: string, environment: string): void {
    this.baseSystem = base;
    this.composeSystem(environment);
  }

  /** A new environment block after the same prompt. */
  composeSystem(environment: string): void {
    this.system = environment === '' ? this.baseSystem : `${this.baseSystem}\n\n${environment}`;
    this.rehash();
  }

  /**
   * Before a step: applies the MCP tool lists that changed since the last one and says what the step
   * offers, or `undefined` when nothing changed and nothing is to be reported. A list that cannot be
   * offered (a name taken by another tool) leaves the tools as they were.
   */
  sync(report: boolean, systemChanged: boolean): ToolsUpdate | undefined {
    const changes = this.sources.mcp?.takeChanges(this.sources.log().events.length) ?? [];
    const retool = changes.length > 0 || this.offeredMode !== this.sources.gate.mode;
    if (!retool && !report && !systemChanged) return undefined;
    let applied = changes;
    if (retool) {
      const before = new Map(this.tools);
      try {
        this.offer();
      } catch {
        // A clash keeps the last working tool list; the step is told nothing was applied.
        this.tools.clear();
        for (const [name, tool] of before) this.tools.set(name, tool);
        if (!report && !systemChanged) return undefined;
        applied = [];
      }
    }
    if (retool) this.rehash();
    return { changes: applied, toolNames: [...this.tools.keys()], systemHash: this.systemHash };
  }

  /** The same object while system prompt and tools stay the same, so projection can reuse its work. */
  projectOptions(): { system: string; tools: ToolSpec[] } {
    if (this.projectOptionsMemo?.system !== this.system || this.projectOptionsMemo.tools !== this.specs) {
      this.projectOptionsMemo = { system: this.system, tools: this.specs };
    }
    return this.projectOptionsMemo;
  }

  /** The tools offered and the MCP servers started, as `session.start` and `session.resumed` record them. */
  startConfig(): Record<string, unknown> {
    const servers = this.sources.mcp?.servers() ?? [];
    const mcp = Object.fromEntries(
      servers.map(({ server, transport, tools }) => [server, { transport, tools }]),
    );
    return { tools: this.specs, ...(servers.length > 0 ? { mcp } : {}) };
  }

  private rehash(): void {
    const { shared, system } = this;
    if (shared === undefined) {
      this.systemHash = hashText(`${system}\n${JSON.stringify(this.specs)}`);
      return;
    }
    if (shared.hashed?.system !== system)
      shared.hashed = { system, hash: hashText(`${system}\n${shared.json}`) };
    this.systemHash = shared.hashed.hash;
  }
}

/** What one list of tools offers in one mode: the same for every agent that offers that list. */
type SharedOffer = {
  tools: readonly AnyTool[];
  specs: ToolSpec[];
  json: string;
  /** The last system prompt hashed with these specs, and its hash (agents mostly share one prompt). */
  hashed?: { system: string; hash: string };
};

const sharedOffers = new WeakMap<readonly AnyTool[], Map<PermissionMode, SharedOffer>>();

/**
 * The offer of `tools` in `mode`, worked out once for every agent given that very array (a system's tools,
 * see `SubagentTools.wrapAll`). A list that cannot be offered (two tools of one name, an input JSON Schema
 * cannot describe) is not kept: each agent's offer fails as it would on its own.
 */
function sharedOffer(tools: readonly AnyTool[], mode: PermissionMode): SharedOffer | undefined {
  let byMode = sharedOffers.get(tools);
  const known = byMode?.get(mode);
  if (known) return known;
  const offered = toolsOfferedInMode(tools, mode);
  if (new Set(offered.map((tool) => tool.name)).size !== offered.length) return undefined;
  let specs: ToolSpec[];
  try {
    specs = offered.map(describeTool);
  } catch {
    // Thrown again, with its ConfigError, by the agent's own offer.
    return undefined;
  }
  const shared = { tools: offered, specs, json: JSON.stringify(specs) };
  if (byMode === undefined) {
    byMode = new Map();
    sharedOffers.set(tools, byMode);
  }
  byMode.set(mode, shared);
  return shared;
}

/** A tool built without `defineTool` may have an input schema JSON Schema cannot express. */
function describeTool(tool: AnyTool): ToolSpec {
  try {
    return toolSpec(tool);
  } catch (error) {
    throw new ConfigError(
      `tool "${tool.name}": its input cannot be described to the model: ${messageOf(error)}`,
      { cause: error },
    );
  }
}

/** A short, stable content hash (32 bits, hex) to tell system prompts apart in the log. */
function hashText(text: string): string {
  return fnv1a(text).toString(16).padStart(8, '0');
}
