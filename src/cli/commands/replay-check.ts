import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../../errors/config-error.ts';
import { messageOf } from '../../errors/describe-value.ts';
import { formatChange } from '../../errors/replay-divergence-error.ts';
import { checkReplay } from '../../replay/expect-replay.ts';
import { recordedToolSet } from '../../replay/recorded-tool-set.ts';
import type { ReplayOptions } from '../../replay/replay-tools.ts';
import type { LogEvent } from '../../session/types.ts';
import { skillFolders } from '../../settings/skills.ts';
import { CliError } from '../cli-error.ts';
import { type ReplaySourceFlags, readReplaySource } from '../replay-source.ts';
import { type CliIo, line } from '../terminal/io.ts';

/** How `replay --check` gets its tool results: from the log, or by running the tools again. */
export type ReplayCheckFlags = ReplaySourceFlags & {
  setup?: string;
  json?: boolean;
  tools?: string;
  workspace?: string;
};

/**
 * `agentchart replay FILE --check [--tools recorded|live] [--workspace DIR] [--setup MODULE] [--json]`
 * (or `replay ID --postgres URL --check …`, a session a worker kept in PostgreSQL):
 * re-runs the recorded session through the current runtime with the recorded model responses, ids and
 * clock, and compares the new log with the file. Exit 0 when they are equal; 1 when behaviour changed,
 * with the first diverging seq, its event type, one line of why and the fields that differ (`--json`: the
 * same report as one JSON line, with both whole lines, for CI). By default (`--tools recorded`) every tool
 * result comes from the log and no tool runs, so the check runs in any folder, on any machine. With
 * `--tools live` the built-in tools the recording offered (`session.start`: the coding tools, and `task`
 * when the CLI recorded it) run again, in `--workspace DIR` (a copy restored to how the workspace was when
 * the session started; default the recorded workspace). MODULE's default export adds or replaces options:
 * an object of `createAgentSystem` options (`tools` — run live —, `approve`, `hooks`, …) or a function
 * from the recorded events to one. A recorded skill whose folder is not on this machine is found by name
 * where `agentchart run` finds skills.
 */
export async function replayCheckCommand(file: string, flags: ReplayCheckFlags, io: CliIo): Promise<number> {
  const setupModule = flags.setup;
  const tree = await readReplaySource(file, flags, io);
  const { label: path, events: recorded } = tree;
  const tools = toolsFlag(flags.tools);
  if (flags.workspace !== undefined && tools !== 'live')
    throw new CliError('--workspace is for --tools live: recorded tools do not run');
  const fromModule = setupModule ? await loadSetup(resolve(io.cwd, setupModule), recorded) : {};
  if (tools === 'live' && fromModule.tools === undefined) warnUnknownTools(recorded, io);
  const options: ReplayOptions = {
    ...skillsHere(recorded, io),
    ...(tools ? { tools } : {}),
    ...fromModule,
    ...(flags.workspace !== undefined ? { workspace: resolve(io.cwd, flags.workspace) } : {}),
  };
  const check = await checkReplay(recorded, { ...options, subagentLogs: tree.subagents });
  const { divergence } = check;
  // A subagent's divergence is reported on its own log (the file beside the parent's).
  const diverged = divergence?.sessionId !== undefined ? tree.files.get(divergence.sessionId) : undefined;
  if (flags.json) {
    const report = divergence
      ? {
          ok: false,
          file: path,
          events: check.events,
          ...(diverged !== undefined ? { divergedFile: diverged } : {}),
          divergence: divergence.toJSON(),
        }
      : { ok: true, file: path, events: check.events };
    line(io.stdout, JSON.stringify(report));
    return divergence ? 1 : 0;
  }
  if (!divergence) {
    const logs = tree.subagents.size > 0 ? ` (this log and ${subagentCount(tree.subagents.size)})` : '';
    line(
      io.stdout,
      `Replay check passed: ${path} — ${check.events} events written again${logs}, byte for byte.`,
    );
    return 0;
  }
  const type = divergence.recordedType ?? divergence.replayedType;
  const where =
    diverged !== undefined ? `${diverged} (subagent session ${divergence.sessionId} of ${path})` : path;
  line(io.stdout, `Replay check FAILED: ${where} diverged at seq ${divergence.seq} (${type})`);
  line(io.stdout, `  why: ${divergence.reason}`);
  for (const change of divergence.changes) line(io.stdout, `  ${formatChange(change)}`);
  if (divergence.moreChanges > 0) line(io.stdout, `  … and ${divergence.moreChanges} more fields`);
  if (check.stopped && divergence.replayedType !== undefined)
    line(io.stdout, `  the replay stopped early: ${check.stopped}`);
  line(io.stdout, '  (--json prints the report with both whole lines)');
  return 1;
}

function subagentCount(count: number): string {
  return count === 1 ? "1 subagent's log" : `${count} subagents' logs`;
}

function toolsFlag(value: string | undefined): 'recorded' | 'live' | undefined {
  if (value === undefined || value === 'recorded' || value === 'live') return value;
  throw new CliError(`--tools must be "recorded" or "live", got ${JSON.stringify(value)}`);
}

/** Live tools are the built-in ones the recording offered: a host's own tool only `--setup` can give. */
function warnUnknownTools(recorded: readonly LogEvent[], io: CliIo): void {
  const { unknown } = recordedToolSet(recorded);
  if (unknown.length > 0)
    line(
      io.stderr,
      `agentchart: the recording offered tools that are not built in (${unknown.join(', ')}); ` +
        'give them with --setup MODULE, or the check diverges where they were offered',
    );
}

/**
 * For a recording with skills, where a recorded skill folder missing on this machine is looked for by name:
 * the folders `agentchart run` finds skills in, for the recorded workspace as this machine has it (the
 * recording's folders are used where they exist).
 */
function skillsHere(recorded: readonly LogEvent[], io: CliIo): Pick<ReplayOptions, 'skills'> {
  const config = recorded[0]?.data.config as { skills?: unknown; cwd?: unknown } | undefined;
  if (!Array.isArray(config?.skills)) return {};
  const workspace = resolve(io.cwd, typeof config.cwd === 'string' ? config.cwd : '.');
  return { skills: { folders: skillFolders(workspace, io.env) } };
}

async function loadSetup(path: string, recorded: readonly LogEvent[]): Promise<ReplayOptions> {
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(path).href)) as { default?: unknown };
  } catch (error) {
    throw new ConfigError(`--setup ${path} could not be loaded: ${messageOf(error)}`, { cause: error });
  }
  const exported = module.default;
  const setup =
    typeof exported === 'function'
      ? await (exported as (events: readonly LogEvent[]) => unknown)(recorded)
      : exported;
  if (!setup || typeof setup !== 'object')
    throw new ConfigError(
      `--setup ${path} must default-export createAgentSystem options or a function returning them`,
    );
  return setup as ReplayOptions;
}
