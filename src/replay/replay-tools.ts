// The two ways to replay a recording. Recorded tools (the default): every tool result comes from the log
// and no tool runs, so the check covers the runtime, charts, hooks, permissions and prompts, on any
// machine and in any folder. Live tools: the real tools run again, in a workspace restored to how it was
// when the session started.
import { stat } from 'node:fs/promises';
import { ConfigError } from '../errors/config-error.ts';
import { inWorkspace } from '../runtime/workspace-paths.ts';
import { isEvent, type LogEvent } from '../session/types.ts';
import { skillFolders } from '../settings/skills.ts';
import type { AnyTool } from '../tools/define-tool.ts';
import { movedSkillRoots } from './moved-skill-roots.ts';
import { recordedToolSet } from './recorded-tool-set.ts';
import { recordedTools } from './recorded-tools.ts';
import type { ReplaySetup } from './replay-session.ts';

/**
 * Where a replay's tool results come from: `'recorded'` (the log), `'live'` (the built-in tools the
 * recording offered, run again) or the host's own tools, run again.
 */
export type ReplayTools = 'recorded' | 'live' | readonly AnyTool[];

/**
 * What the host gives `expectReplay`, `checkReplay` and time travel: the tools (default `'recorded'`),
 * the folder live tools run in, and the approver, hooks and policies as for `createAgentSystem`.
 */
export type ReplayOptions = Omit<ReplaySetup, 'tools' | 'cwd'> & {
  tools?: ReplayTools;
  /**
   * With live tools: the folder they run in, restored to how the workspace was when the session started
   * (default: the recorded workspace itself). The recorded path stays what the runtime sees (configuration,
   * prompts, permission checks); tool inputs are mapped onto this folder and outputs back.
   */
  workspace?: string;
};

/**
 * The replay's setup for `options`. Live tools need their folder: a ConfigError says so when it is not one
 * (a recording from another machine names a workspace that is not here: give `workspace`).
 */
export async function replaySetup(
  recorded: readonly LogEvent[],
  options: ReplayOptions = {},
): Promise<ReplaySetup> {
  const { tools = 'recorded', workspace, ...rest } = options;
  if (tools === 'recorded') {
    if (workspace !== undefined)
      throw new ConfigError('a workspace is for live tools: recorded tools do not run (give tools: "live")');
    const { tools: builtIn, unknown } = recordedToolSet(recorded);
    // The built-in definitions describe and check calls exactly as recorded; the host's own are stand-ins.
    const standIns = recordedTools(recorded, unknown);
    return { ...rest, tools: [...builtIn, ...standIns], toolResults: 'recorded' };
  }
  const chosen = tools === 'live' ? recordedToolSet(recorded).tools : [...tools];
  const recordedCwd = recordedWorkspace(recorded);
  const folder = workspace ?? recordedCwd;
  if (folder !== undefined && !(await stat(folder).catch(() => undefined))?.isDirectory())
    throw new ConfigError(
      workspace !== undefined
        ? `workspace "${workspace}" is not a directory`
        : `the recorded workspace "${folder}" is not a directory here: live tools need a restored copy (give its folder as the workspace) or recorded tools`,
    );
  if (workspace === undefined || recordedCwd === undefined) return { ...rest, tools: chosen };
  return {
    ...rest,
    ...withMovedSkills(rest.skills, movedSkillRoots(recorded, workspace), recordedCwd),
    tools: chosen.map((tool) => inWorkspace(tool, recordedCwd, workspace)),
  };
}

/**
 * The restored workspace's skill folders first (`movedSkillRoots`: a skill the recording found in its
 * workspace is found there, not one of that name elsewhere), then the host's.
 */
function withMovedSkills(
  skills: ReplaySetup['skills'],
  moved: readonly string[],
  recordedCwd: string,
): Pick<ReplaySetup, 'skills'> {
  if (moved.length === 0) return skills === undefined ? {} : { skills };
  const given = skills === true ? skillFolders(recordedCwd, process.env) : skills ? skills.folders : [];
  return { skills: { folders: [...moved, ...given] } };
}

function recordedWorkspace(recorded: readonly LogEvent[]): string | undefined {
  const start = recorded[0];
  if (!start || !isEvent(start, 'session.start')) return undefined;
  const cwd = (start.data.config as { cwd?: unknown }).cwd;
  return typeof cwd === 'string' ? cwd : undefined;
}
