import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../../errors/config-error.ts';
import { messageOf } from '../../errors/describe-value.ts';
import { formatChange } from '../../errors/replay-divergence-error.ts';
import { checkReplay, readRecording } from '../../runtime/expect-replay.ts';
import type { ReplaySetup } from '../../runtime/replay-session.ts';
import { sessionIdFromFile } from '../../session/file-store.ts';
import type { LogEvent } from '../../session/types.ts';
import { skillFolders } from '../../settings/skills.ts';
import { type CliIo, line } from '../io.ts';
import { recordedToolSet } from '../recorded-tool-set.ts';

/**
 * `agentchart replay FILE --check [--setup MODULE] [--json]`: re-runs the recorded session through the
 * current runtime with the recorded model responses, ids and clock, and compares the new log with the
 * file. Exit 0 when they are equal; 1 when behaviour changed, with the first diverging seq, its event
 * type, one line of why and the fields that differ (`--json`: the same report as one JSON line, with
 * both whole lines, for CI). The tools
 * are the built-in ones the recording offered (`session.start`: the coding tools, and `task` when the
 * CLI recorded it) unless MODULE's default export says otherwise: an object of `createAgentSystem`
 * options (`tools`, `approve`, `hooks`, …) or a function from the recorded events to one. Tools run for
 * real, in the recorded workspace; a recorded skill whose folder is not on this machine is found by name
 * where `agentchart run` finds skills.
 */
export async function replayCheckCommand(
  file: string,
  flags: { setup?: string; json?: boolean },
  io: CliIo,
): Promise<number> {
  const setupModule = flags.setup;
  const path = resolve(io.cwd, file);
  // The same refusal `replay` gives a path that is no session log (`/etc/passwd`, a folder).
  sessionIdFromFile(path);
  const recorded = await readRecording(path);
  const setup = setupModule
    ? await loadSetup(resolve(io.cwd, setupModule), recorded)
    : builtInSetup(recorded, io);
  const check = await checkReplay(recorded, { ...skillsHere(recorded, io), ...setup });
  const { divergence } = check;
  if (flags.json) {
    const report = divergence
      ? { ok: false, file: path, events: check.events, divergence: divergence.toJSON() }
      : { ok: true, file: path, events: check.events };
    line(io.stdout, JSON.stringify(report));
    return divergence ? 1 : 0;
  }
  if (!divergence) {
    line(io.stdout, `Replay check passed: ${path} — ${check.events} events written again, byte for byte.`);
    return 0;
  }
  const type = divergence.recordedType ?? divergence.replayedType;
  line(io.stdout, `Replay check FAILED: ${path} diverged at seq ${divergence.seq} (${type})`);
  line(io.stdout, `  why: ${divergence.reason}`);
  for (const change of divergence.changes) line(io.stdout, `  ${formatChange(change)}`);
  if (divergence.moreChanges > 0) line(io.stdout, `  … and ${divergence.moreChanges} more fields`);
  if (check.stopped && divergence.replayedType !== undefined)
    line(io.stdout, `  the replay stopped early: ${check.stopped}`);
  line(io.stdout, '  (--json prints the report with both whole lines)');
  return 1;
}

/** The built-in tools the recording offered (`task` beside the coding tools when the CLI recorded it). */
function builtInSetup(recorded: readonly LogEvent[], io: CliIo): ReplaySetup {
  const { tools, unknown } = recordedToolSet(recorded);
  if (unknown.length > 0)
    line(
      io.stderr,
      `agentchart: the recording offered tools that are not built in (${unknown.join(', ')}); ` +
        'give them with --setup MODULE, or the check diverges where they were offered',
    );
  return { tools };
}

/**
 * For a recording with skills, where a recorded skill folder missing on this machine is looked for by name:
 * the folders `agentchart run` finds skills in, for the recorded workspace as this machine has it (the
 * recording's folders are used where they exist).
 */
function skillsHere(recorded: readonly LogEvent[], io: CliIo): Pick<ReplaySetup, 'skills'> {
  const config = recorded[0]?.data.config as { skills?: unknown; cwd?: unknown } | undefined;
  if (!Array.isArray(config?.skills)) return {};
  const workspace = resolve(io.cwd, typeof config.cwd === 'string' ? config.cwd : '.');
  return { skills: { folders: skillFolders(workspace, io.env) } };
}

async function loadSetup(path: string, recorded: readonly LogEvent[]): Promise<ReplaySetup> {
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
  return setup as ReplaySetup;
}
