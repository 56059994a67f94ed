import { join } from 'node:path';
import { createAgentSystem } from '../../runtime/create-agent-system.ts';
import { fileStore } from '../../session/file-store.ts';
import { codingTools } from '../../tools/coding-tools.ts';
import { taskTool } from '../../tools/task.ts';
import { jobCommand } from '../job-command.ts';
import type { CliIo } from './context.ts';
import { type AgentFlags, providerFor, workspaceOf } from './run.ts';

export type JobFlags = AgentFlags & { concurrency?: number };

/**
 * `agentchart job FILE.json`: the job's agents run side by side, so nobody is asked on the terminal —
 * calls that need approval are denied (headless) unless the mode allows them. Ctrl-C cancels the job.
 */
export async function runJobCommand(file: string, flags: JobFlags, io: CliIo): Promise<number> {
  const cwd = await workspaceOf(io, flags.cwd);
  const { provider } = providerFor(io, flags);
  const system = createAgentSystem({
    model: provider,
    tools: [...codingTools(), taskTool()],
    store: fileStore(join(cwd, '.agentchart', 'sessions')),
    cwd,
    permissionMode: flags.mode ?? (flags.yes ? 'accept-edits' : 'default'),
  });
  const cancel = new AbortController();
  const onInterrupt = () => cancel.abort();
  process.once('SIGINT', onInterrupt);
  try {
    return await jobCommand(file, {
      io,
      system,
      signal: cancel.signal,
      ...(flags.json ? { json: true } : {}),
      ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
    });
  } finally {
    process.off('SIGINT', onInterrupt);
    await system.dispose();
  }
}
