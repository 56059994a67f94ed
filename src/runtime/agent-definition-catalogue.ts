import type { LogEvent } from '../session/types.ts';
import {
  type AgentDefinition,
  agentCatalogueText,
  type DefinitionContext,
  discoverAgentDefinitions,
  type SkippedAgentDefinition,
} from '../settings/agent-definitions.ts';
import type { AnyTool } from '../tools/define-tool.ts';

/** Where one agent's definitions come from: folders to read, or a recording whose catalogue is used. */
export type AgentDefinitionSource =
  | { folders: readonly string[] }
  | { recorded: readonly LogEvent[]; folders?: readonly string[] };

/** Where one agent's definitions come from, and what their files are read against. */
export type DefinitionSetting = { source: AgentDefinitionSource; context: DefinitionContext };

/** The tools that take `agent_type`: the catalogue is in the prompt only for an agent offered one of them. */
const delegatingTools = ['task', 'spawn_agent'];

/**
 * One agent's agent definitions: read from the configured folders when its session is new, or taken whole
 * as the log recorded them (`session.start.config.agentDefinitions`) when it is resumed, forked or replayed,
 * so the catalogue the model saw — and what each type launches — stays the same on any machine and in any
 * folder. A subagent has none.
 */
export class AgentDefinitionCatalogue {
  entries: AgentDefinition[] = [];
  skipped: SkippedAgentDefinition[] = [];
  /**
   * The part of a new session's system prompt that lists them: empty when none was found, when none of the
   * agent's tools takes `agent_type`, or when the session has begun (its recorded prompt holds it).
   */
  promptText = '';

  /** `tools`: the agent's own (the catalogue is only for an agent with `task` or `spawn_agent`). */
  async load(
    setting: DefinitionSetting | undefined,
    events: readonly LogEvent[],
    tools: readonly AnyTool[],
  ): Promise<void> {
    const source = setting?.source;
    // A session that has begun keeps what it began with, none included: a type it was never told of
    // must not start (nor differ in a replay) because a file appeared since.
    const log =
      events[0]?.type === 'session.start'
        ? events
        : source && 'recorded' in source
          ? source.recorded
          : undefined;
    this.promptText = '';
    if (log !== undefined) {
      this.entries = recorded(log);
      this.skipped = [];
    } else if (source !== undefined && 'folders' in source && source.folders !== undefined) {
      ({ definitions: this.entries, skipped: this.skipped } = await discoverAgentDefinitions(
        source.folders,
        setting?.context,
      ));
      const delegates = tools.some((tool) => delegatingTools.includes(tool.name));
      this.promptText = delegates ? agentCatalogueText(this.entries) : '';
    }
  }

  /** The definition named `name`, if there is one. */
  find(name: string): AgentDefinition | undefined {
    return this.entries.find((entry) => entry.name === name);
  }

  /** What `session.start` records: every definition whole, and the files skipped and why. */
  startConfig(): Record<string, unknown> {
    return {
      ...(this.entries.length > 0 ? { agentDefinitions: this.entries } : {}),
      ...(this.skipped.length > 0 ? { agentDefinitionsSkipped: this.skipped } : {}),
    };
  }
}

/** The definitions a log's `session.start` recorded (none when it recorded none). */
function recorded(events: readonly LogEvent[]): AgentDefinition[] {
  const start = events[0];
  const config = start?.type === 'session.start' ? (start.data.config as Record<string, unknown>) : undefined;
  const list = config?.agentDefinitions;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (entry): entry is AgentDefinition =>
      typeof entry === 'object' &&
      entry !== null &&
      typeof entry.name === 'string' &&
      typeof entry.description === 'string' &&
      typeof entry.instructions === 'string',
  );
}
