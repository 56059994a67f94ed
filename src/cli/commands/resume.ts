import { emptyUsage, type Usage } from '../../providers/types.ts';
import type { Agent, RunResult } from '../../runtime/agent-handle.ts';
import { pendingInbox } from '../../session/repair.ts';
import { isEvent, type StopReason } from '../../session/types.ts';
import { type AgentFlags, cliAgentSystem } from '../agent-system.ts';
import { driveSession, resumeHint } from '../drive-session.ts';
import { CliError, type CliIo, line, personOut } from '../io.ts';
import { openRecordedSession } from '../recorded-session.ts';

/**
 * `agentchart resume FILE ["<next message>"]`: loads a session, repairs what a crash left open and goes on.
 * Input that was queued but never answered runs first; otherwise the next message is required.
 */
export async function resumeCommand(
  file: string,
  message: string | undefined,
  flags: AgentFlags,
  io: CliIo,
): Promise<number> {
  const session = await openRecordedSession(file, flags, io);
  const { sessionFile, sessionId, store, events, cwd, provider, description, mode } = session;
  const waiting = pendingInbox(events).filter((item) => item.channel !== 'inject');
  if (message === undefined && waiting.length === 0) {
    throw new CliError(
      `session ${sessionId} has no unanswered input; give the next message: ${resumeHint(file)}`,
      { exitCode: 2 },
    );
  }
  const { system, closePrompt } = cliAgentSystem({ io, provider, store, cwd, mode, prompt: true });
  try {
    const agent = await system.resumeAgent(sessionId);
    const ui = personOut(io, flags.json);
    const queued = waiting.length > 0 ? `; ${waiting.length} queued message(s) run first` : '';
    line(ui, `agentchart: resuming ${sessionId} (${events.length} events${queued}) with ${description}`);
    const start = async (): Promise<RunResult> => {
      if (message !== undefined) return agent.run(message);
      await agent.whenIdle();
      return lastResult(agent, events.length);
    };
    return await driveSession({
      io,
      json: flags.json ?? false,
      system,
      agent,
      providerName: provider.name,
      sessionFile,
      start,
      epilogue: [`Continue it: ${resumeHint(sessionFile)}`],
    });
  } finally {
    closePrompt();
    await system.dispose();
  }
}

/** The result of the last turn that ended after the first `from` events. */
function lastResult(agent: Agent, from: number): RunResult {
  const events = agent.log();
  for (let index = events.length - 1; index >= from; index--) {
    const event = events[index]!;
    if (!isEvent(event, 'turn.end')) continue;
    const text =
      events
        .slice(from, index)
        .findLast((candidate) => isEvent(candidate, 'assistant.message') && candidate.turn === event.turn)
        ?.data.text ?? '';
    const data = event.data as { reason: StopReason; usage?: Usage };
    return {
      reason: data.reason,
      text: String(text),
      usage: data.usage ?? emptyUsage,
      turn: event.turn ?? 0,
    };
  }
  throw new CliError('the resumed session ended without running a turn');
}
