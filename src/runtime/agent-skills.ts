import type { LogEvent } from '../session/types.ts';
import { discoverSkills, type SkippedSkill, skillCatalogueText } from '../settings/skills.ts';
import type { AnyTool } from '../tools/define-tool.ts';
import { skillTool } from '../tools/skill.ts';
import type { SkillEntry } from '../tools/skill-files.ts';
import type { SystemConfig } from './options-schema.ts';

/**
 * One agent's skills: found in the configured folders when its session is new, or taken as the log
 * recorded them (`session.start.config.skills`) when it is resumed, forked or replayed, so the catalogue
 * the model saw stays the one it sees.
 */
export class AgentSkills {
  entries: SkillEntry[] = [];
  skipped: SkippedSkill[] = [];
  /** Name → folder, for `read_file` (the same map for the agent's whole life). */
  readonly folders = new Map<string, string>();
  tools: AnyTool[] = [];
  /** The part of the system prompt that lists them; empty when the recorded prompt has it already. */
  promptText = '';

  async load(source: SystemConfig['skills'], events: readonly LogEvent[]): Promise<void> {
    const own = recordedSkills(events);
    if (own !== undefined) this.entries = own;
    else if (source !== undefined && 'recorded' in source)
      this.entries = recordedSkills(source.recorded) ?? [];
    else if (source !== undefined) {
      ({ skills: this.entries, skipped: this.skipped } = await discoverSkills(source.folders));
      this.promptText = skillCatalogueText(this.entries);
    }
    this.folders.clear();
    for (const entry of this.entries) this.folders.set(entry.name, entry.folder);
    this.tools = this.entries.length > 0 ? [skillTool(this.entries)] : [];
  }

  /** What `session.start` records: the catalogue, and the SKILL.md files that were skipped and why. */
  startConfig(): Record<string, unknown> {
    return {
      ...(this.entries.length > 0 ? { skills: this.entries } : {}),
      ...(this.skipped.length > 0 ? { skillsSkipped: this.skipped } : {}),
    };
  }
}

/** The catalogue a log's `session.start` recorded, or undefined when it recorded none. */
function recordedSkills(events: readonly LogEvent[]): SkillEntry[] | undefined {
  const start = events[0];
  const skills =
    start?.type === 'session.start' ? (start.data.config as { skills?: unknown })?.skills : undefined;
  if (!Array.isArray(skills)) return undefined;
  return skills.filter(
    (entry): entry is SkillEntry =>
      typeof entry === 'object' &&
      entry !== null &&
      typeof entry.name === 'string' &&
      typeof entry.description === 'string' &&
      typeof entry.folder === 'string',
  );
}
