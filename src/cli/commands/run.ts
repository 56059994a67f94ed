import { resolve } from 'node:path';
import { fileStore } from '../../session/file-store.ts';
import { sessionFileLocation, sessionFilePath } from '../../session/session-files.ts';
import { type AgentFlags, providerFor, workspaceOf } from '../agent-flags.ts';
import { cliAgentSystem } from '../agent-system.ts';
import { CliError } from '../cli-error.ts';
import { permissionsOf } from '../cli-permissions.ts';
import { driveSession, resumeHint } from '../drive-session.ts';
import { sessionsFolder } from '../session-folders.ts';
import { type CliIo, line, personOut } from '../terminal/io.ts';

export type RunFlags = AgentFlags & { session?: string };

/** `agentchart run "<task>"`: one turn of a coding agent in a folder, shown live. */
export async function runCommand(task: string, flags: RunFlags, io: CliIo): Promise<number> {
  const cwd = await workspaceOf(io, flags.cwd);
  const { provider, description } = await providerFor(io, flags);
  // The MCP servers and hooks of the settings files go to the system as they are.
  const { mode, ...fromSettings } = await permissionsOf(io, flags, cwd);
  const named = flags.session;
  const target = named
    ? sessionFileLocation(resolve(io.cwd, named))
    : { dir: sessionsFolder(cwd, io.env, flags.sessionDir, io.cwd), sessionId: undefined };
  const store = fileStore(target.dir);
  if (named && target.sessionId !== undefined && (await store.exists(target.sessionId))) {
    throw new CliError(`${named} already exists; continue it with: ${resumeHint(named)}`, { exitCode: 2 });
  }
  const { system, closePrompt } = cliAgentSystem({
    io,
    provider,
    store,
    cwd,
    mode,
    ...fromSettings,
    ...(flags.maxSteps !== undefined ? { maxSteps: flags.maxSteps } : {}),
    ...(flags.backgroundAgents ? { backgroundAgents: true } : {}),
    prompt: true,
  });
  try {
    const agent = await system.createAgent(target.sessionId ? { id: target.sessionId } : {});
    const ui = personOut(io, flags.json);
    line(ui, `agentchart: ${description} · mode ${mode} · ${cwd}`);
    const sessionFile = sessionFilePath(target.dir, agent.sessionId);
    return await driveSession({
      io,
      json: flags.json ?? false,
      states: flags.states ?? false,
      system,
      agent,
      providerName: provider.name,
      sessionFile,
      start: () => agent.run(task),
      epilogue: [`Continue it: ${resumeHint(sessionFile)}`],
    });
  } finally {
    closePrompt();
    await system.dispose();
  }
}
