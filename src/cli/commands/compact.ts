import type { CompactResult } from '../../machines/compaction-types.ts';
import type { AgentFlags } from '../agent-flags.ts';
import { cliAgentSystem } from '../agent-system.ts';
import { openRecordedSession } from '../recorded-session.ts';
import { describeProviderError } from '../select-provider.ts';
import { type CliIo, line, personOut } from '../terminal/io.ts';

export type CompactFlags = AgentFlags & { instructions?: string };

/**
 * `agentchart compact SESSION [--instructions TEXT]` (an id of this workspace or a file): resumes a recorded
 * session (repairing what a crash left open), asks the model to summarise its older part, and logs the
 * `compaction` — the raw events stay in the file; the next request shows the summary in their place. Queued input stays queued. Exit code 0 when
 * it compacted or there was nothing to compact, 1 when the model failed.
 */
export async function compactCommand(file: string, flags: CompactFlags, io: CliIo): Promise<number> {
  const { sessionFile, sessionId, store, events, cwd, provider, description, mode } =
    await openRecordedSession(file, flags, io);
  const { system, closePrompt } = cliAgentSystem({ io, provider, store, cwd, mode, prompt: false });
  try {
    const agent = await system.resumeAgent(sessionId);
    const ui = personOut(io, flags.json);
    line(ui, `agentchart: compacting ${sessionId} (${events.length} events) with ${description}`);
    const result = await agent.compact(
      flags.instructions === undefined ? {} : { instructions: flags.instructions },
    );
    if (flags.json) line(io.stdout, JSON.stringify({ type: 'result', sessionFile, ...result }));
    else line(io.stdout, describeResult(result, provider.name));
    return result.compacted || result.reason === 'nothing_to_compact' ? 0 : 1;
  } finally {
    closePrompt();
    await system.dispose();
  }
}

function describeResult(result: CompactResult, providerName: string): string {
  if (result.compacted) {
    const [from, to] = result.replaces;
    return (
      `Compacted events ${from}–${to} (the context held ${result.tokensBefore.toLocaleString('en-US')} tokens) ` +
      `into a summary of ${result.summary.length.toLocaleString('en-US')} characters.`
    );
  }
  if (result.reason === 'nothing_to_compact')
    return 'Nothing to compact: the session has no older part to summarise.';
  if (result.reason === 'canceled') return 'The compaction was canceled; nothing was logged.';
  return `The compaction failed: ${result.error ? describeProviderError(result.error, providerName) : 'the model failed'}`;
}
