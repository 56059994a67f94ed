import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { LogEvent } from '../session/types.ts';
import { discoverSkills, type SkippedSkill, skillCatalogueText } from '../settings/skills.ts';
import type { AnyTool } from '../tools/define-tool.ts';
import { skillTool } from '../tools/skill.ts';
import type { SkillEntry, SkillPlace } from '../tools/skill-files.ts';
import { legacySkillTool, legacySkillToolDescription } from '../tools/skill-legacy.ts';
import { isInside } from '../tools/workspace.ts';
import type { SystemConfig } from './options-schema.ts';

/**
 * One agent's skills: found in the configured folders when its session is new, or taken as the log
 * recorded them (`session.start.config.skills`) when it is resumed, forked or replayed, so the catalogue
 * the model saw stays the one it sees. A recorded folder that is not on this machine is looked for where
 * the session's workspace now is, then among the skills found here by name (see `localFolder`).
 */
export class AgentSkills {
  entries: SkillEntry[] = [];
  skipped: SkippedSkill[] = [];
  /** Name → folder as told and as here, for the file tools (the same map for the agent's whole life). */
  readonly folders = new Map<string, SkillPlace>();
  tools: AnyTool[] = [];
  /** The part of the system prompt that lists them; empty when the recorded prompt has it already. */
  promptText = '';

  /** `cwd` is the workspace the agent runs in now (a replay's may differ from the recording's). */
  async load(source: SystemConfig['skills'], events: readonly LogEvent[], cwd: string): Promise<void> {
    const own = recorded(events);
    const given = source !== undefined && 'recorded' in source ? recorded(source.recorded) : undefined;
    const found = own ?? given;
    const folders = source !== undefined && 'folders' in source ? source.folders : undefined;
    this.folders.clear();
    if (found !== undefined) {
      this.entries = found.skills;
      const here = folders !== undefined ? (await discoverSkills(folders)).skills : [];
      for (const entry of this.entries) {
        const local = await localFolder(entry, { recordedCwd: found.cwd, cwd, here });
        this.folders.set(entry.name, { shown: entry.folder, local });
      }
    } else if (folders !== undefined) {
      ({ skills: this.entries, skipped: this.skipped } = await discoverSkills(folders));
      this.promptText = skillCatalogueText(this.entries);
      for (const entry of this.entries)
        this.folders.set(entry.name, { shown: entry.folder, local: entry.folder });
    }
    // A recording made with the tool of before base folders goes on with that tool (its log stays as it was).
    const tool = found?.legacy === true ? legacySkillTool : skillTool;
    this.tools = this.entries.length > 0 ? [tool(this.entries, this.folders)] : [];
  }

  /** The real folders of the skills, as told and as here: read-only to the agent's tools. */
  readOnlyFolders(): string[] {
    return [...new Set([...this.folders.values()].flatMap((place) => [place.shown, place.local]))];
  }

  /** What `session.start` records: the catalogue, and the SKILL.md files that were skipped and why. */
  startConfig(): Record<string, unknown> {
    return {
      ...(this.entries.length > 0 ? { skills: this.entries } : {}),
      ...(this.skipped.length > 0 ? { skillsSkipped: this.skipped } : {}),
    };
  }
}

/**
 * Where a recorded skill's folder is on this machine: the recorded folder when it holds a SKILL.md; else,
 * for a skill in the recorded workspace, the same place in the workspace the agent runs in now; else the
 * skill of that name found here (`here`); else the recorded folder (its files are then missing, and the
 * tools say so).
 */
async function localFolder(
  entry: SkillEntry,
  where: { recordedCwd: string | undefined; cwd: string; here: readonly SkillEntry[] },
): Promise<string> {
  if (await holdsSkill(entry.folder)) return entry.folder;
  const { recordedCwd, cwd } = where;
  if (recordedCwd !== undefined && path.isAbsolute(recordedCwd) && isInside(recordedCwd, entry.folder)) {
    const moved = path.join(path.resolve(cwd), path.relative(recordedCwd, entry.folder));
    if (await holdsSkill(moved)) return moved;
  }
  return where.here.find((skill) => skill.name === entry.name)?.folder ?? entry.folder;
}

async function holdsSkill(folder: string): Promise<boolean> {
  return stat(path.join(folder, 'SKILL.md')).then(
    (info) => info.isFile(),
    () => false,
  );
}

/** The catalogue a log's `session.start` recorded and the workspace it ran in, or undefined without one. */
function recorded(
  events: readonly LogEvent[],
): { skills: SkillEntry[]; cwd: string | undefined; legacy: boolean } | undefined {
  const start = events[0];
  const config = start?.type === 'session.start' ? (start.data.config as Record<string, unknown>) : undefined;
  const skills = config?.skills;
  if (!Array.isArray(skills)) return undefined;
  const tools = Array.isArray(config?.tools)
    ? (config.tools as { name?: unknown; description?: unknown }[])
    : [];
  return {
    cwd: typeof config?.cwd === 'string' ? config.cwd : undefined,
    legacy: tools.some((spec) => spec.name === 'skill' && spec.description === legacySkillToolDescription),
    skills: skills.filter(
      (entry): entry is SkillEntry =>
        typeof entry === 'object' &&
        entry !== null &&
        typeof entry.name === 'string' &&
        typeof entry.description === 'string' &&
        typeof entry.folder === 'string',
    ),
  };
}
