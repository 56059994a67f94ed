import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../../errors/config-error.ts';
import { messageOf } from '../../errors/describe-value.ts';
import { checkReplay, readRecording } from '../../runtime/expect-replay.ts';
import type { ReplaySetup } from '../../runtime/replay-session.ts';
import { sessionIdFromFile } from '../../session/file-store.ts';
import type { LogEvent } from '../../session/types.ts';
import { skillFolders } from '../../settings/skills.ts';
import { codingTools } from '../../tools/coding-tools.ts';
import { type CliIo, line } from '../io.ts';

/**
 * `agentchart replay FILE --check [--setup MODULE]`: re-runs the recorded session through the current
 * runtime with the recorded model responses, ids and clock, and compares the new log with the file. Exit
 * 0 when they are equal; 1 with the first diverging seq and both lines when behaviour changed. The tools
 * are the built-in coding tools (what `agentchart run` gives an agent) unless MODULE's default export
 * says otherwise: an object of `createAgentSystem` options (`tools`, `approve`, `hooks`, …) or a
 * function from the recorded events to one. Tools run for real, in the recorded workspace; a recorded
 * skill whose folder is not on this machine is found by name where `agentchart run` finds skills.
 */
export async function replayCheckCommand(
  file: string,
  setupModule: string | undefined,
  io: CliIo,
): Promise<number> {
  const path = resolve(io.cwd, file);
  // The same refusal `replay` gives a path that is no session log (`/etc/passwd`, a folder).
  sessionIdFromFile(path);
  const recorded = await readRecording(path);
  const setup = setupModule
    ? await loadSetup(resolve(io.cwd, setupModule), recorded)
    : { tools: codingTools() };
  const check = await checkReplay(recorded, { ...skillsHere(recorded, io), ...setup });
  if (!check.divergence) {
    line(io.stdout, `Replay check passed: ${path} — ${check.events} events written again, byte for byte.`);
    return 0;
  }
  const { seq, expected, actual } = check.divergence;
  line(io.stdout, `Replay check FAILED: ${path} diverged at seq ${seq}`);
  line(io.stdout, `  recorded: ${expected ?? '(end of log)'}`);
  line(io.stdout, `  replayed: ${actual ?? '(end of log)'}`);
  if (check.stopped) line(io.stdout, `  the replay stopped early: ${check.stopped}`);
  return 1;
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
