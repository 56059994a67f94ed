import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { PermissionMode } from '../../permissions/modes.ts';
import type { Provider } from '../../providers/types.ts';
import { createAgentSystem } from '../../runtime/create-agent-system.ts';
import { fileStore, sessionFileLocation } from '../../session/file-store.ts';
import type { SessionStore } from '../../session/types.ts';
import { codingTools } from '../../tools/coding-tools.ts';
import { taskTool } from '../../tools/task.ts';
import { promptApprover } from '../prompt-approver.ts';
import { selectProvider } from '../select-provider.ts';
import { CliError, type CliIo, line } from './context.ts';
import { driveSession } from './drive-session.ts';

/** Flags shared by `run` and `resume`. */
export type AgentFlags = {
  cwd?: string;
  provider?: string;
  model?: string;
  mode?: PermissionMode;
  yes?: boolean;
  json?: boolean;
};

export type RunFlags = AgentFlags & { session?: string };

/** The workspace directory (`--cwd`, or the one a session recorded), checked to exist. */
export async function workspaceOf(io: CliIo, cwd: string | undefined, label = '--cwd'): Promise<string> {
  const dir = resolve(io.cwd, cwd ?? '.');
  const info = await stat(dir).catch((error: unknown) => {
    throw new CliError(`the workspace ${dir} (${label}) does not exist`, { exitCode: 2, cause: error });
  });
  if (!info.isDirectory())
    throw new CliError(`the workspace ${dir} (${label}) is not a directory`, { exitCode: 2 });
  return dir;
}

/** The model from flags and environment, or a `CliError` (exit 2) carrying the guidance text. */
export function providerFor(
  io: CliIo,
  flags: AgentFlags,
  fallbackModel?: string,
): { provider: Provider; description: string } {
  const choice = selectProvider({
    provider: flags.provider,
    model: flags.model ?? fallbackModel,
    env: io.env,
  });
  if ('error' in choice) throw new CliError(choice.error, { exitCode: 2 });
  return choice;
}

/**
 * An agent system for the CLI: coding tools, the chosen mode, and an approver that asks on the terminal
 * when stdin is one. Headless (stdin not a terminal) means a call that would ask is denied; that is said once.
 */
export function cliAgentSystem(options: {
  io: CliIo;
  provider: Provider;
  store: SessionStore;
  cwd: string;
  mode: PermissionMode;
}) {
  const { io, mode } = options;
  const interactive = io.stdin.isTTY === true && mode !== 'bypass' && mode !== 'plan';
  const prompt = interactive ? promptApprover({ input: io.stdin, output: io.stderr }) : undefined;
  if (!interactive && (mode === 'default' || mode === 'accept-edits')) {
    const asks = mode === 'default' ? 'edits and commands' : 'commands';
    line(
      io.stderr,
      `agentchart: stdin is not a terminal, so nobody can approve tool calls: ${asks} will be denied ` +
        '(use --yes for accept-edits or --mode bypass to allow them).',
    );
  }
  const system = createAgentSystem({
    model: options.provider,
    tools: [...codingTools(), taskTool()],
    store: options.store,
    cwd: options.cwd,
    permissionMode: mode,
    ...(prompt ? { approve: prompt.approve } : {}),
  });
  return { system, closePrompt: () => prompt?.close() };
}

/** `agentchart run "<task>"`: one turn of a coding agent in a folder, shown live. */
export async function runCommand(task: string, flags: RunFlags, io: CliIo): Promise<number> {
  const cwd = await workspaceOf(io, flags.cwd);
  const { provider, description } = providerFor(io, flags);
  const mode = flags.mode ?? (flags.yes ? 'accept-edits' : 'default');
  const target = flags.session
    ? sessionFileLocation(resolve(io.cwd, flags.session))
    : { dir: join(cwd, '.agentchart', 'sessions'), sessionId: undefined };
  const store = fileStore(target.dir);
  if (target.sessionId !== undefined && (await store.exists(target.sessionId))) {
    throw new CliError(
      `${flags.session} already exists; continue it with: agentchart resume ${flags.session} "<next message>"`,
      { exitCode: 2 },
    );
  }
  const { system, closePrompt } = cliAgentSystem({ io, provider, store, cwd, mode });
  try {
    const agent = await system.createAgent(target.sessionId ? { id: target.sessionId } : {});
    const ui = flags.json ? io.stderr : io.stdout;
    line(ui, `agentchart: ${description} · mode ${mode} · ${cwd}`);
    const sessionFile = join(target.dir, `${agent.sessionId}.jsonl`);
    return await driveSession({
      io,
      json: flags.json ?? false,
      system,
      agent,
      providerName: provider.name,
      sessionFile,
      start: () => agent.run(task),
      epilogue: [`Continue it: agentchart resume ${sessionFile} "<next message>"`],
    });
  } finally {
    closePrompt();
    await system.dispose();
  }
}
