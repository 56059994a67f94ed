import type { Agent, RunResult } from '../../runtime/agent-handle.ts';
import { loadResumePoint } from '../../runtime/resume/stored-session.ts';
import { turnResult } from '../../runtime/turn-result.ts';
import { pendingInbox } from '../../session/repair.ts';
import { questionsOf, type WaitingPoint } from '../../session/resume-point.ts';
import { isEvent } from '../../session/types.ts';
import type { AgentFlags } from '../agent-flags.ts';
import { cliAgentSystem, wantsBackgroundAgents } from '../agent-system.ts';
import { CliError } from '../cli-error.ts';
import { driveSession, resumeHint } from '../drive-session.ts';
import { openRecordedSession } from '../recorded-session.ts';
import { type CliIo, line, personOut } from '../terminal/io.ts';
import { summarizeToolInput } from '../terminal/render.ts';

/**
 * `agentchart resume FILE ["<next message>"]`: loads a session, repairs what a crash left open and goes on.
 * A session that stopped while it waited for the person's approval is continued there: the pending
 * question is shown first and asked again. Input that was queued but never answered runs next; without
 * either, the next message is required.
 */
export async function resumeCommand(
  file: string,
  message: string | undefined,
  flags: AgentFlags,
  io: CliIo,
): Promise<number> {
  const session = await openRecordedSession(file, flags, io);
  const {
    sessionFile,
    sessionId,
    store,
    events,
    cwd,
    provider,
    description,
    mode,
    rules,
    mcpServers,
    hooks,
  } = session;
  const waiting = pendingInbox(events).filter((item) => item.channel !== 'inject');
  const point = await loadResumePoint(store, events);
  const asking = point.kind === 'waiting' ? point : undefined;
  // A turn left waiting for background children goes on waiting: that is input enough.
  const continues = asking !== undefined || point.kind === 'waitingForAgents';
  if (message === undefined && waiting.length === 0 && !continues) {
    throw new CliError(
      `session ${sessionId} has no unanswered input; give the next message: ${resumeHint(file)}`,
      { exitCode: 2 },
    );
  }
  const { system, closePrompt, canAsk } = cliAgentSystem({
    io,
    provider,
    store,
    cwd,
    mode,
    rules,
    mcpServers,
    hooks,
    ...(flags.maxSteps !== undefined ? { maxSteps: flags.maxSteps } : {}),
    backgroundAgents: wantsBackgroundAgents(flags.backgroundAgents, events),
    prompt: true,
  });
  try {
    const ui = personOut(io, flags.json);
    const queued = waiting.length > 0 ? `; ${waiting.length} queued message(s) run first` : '';
    line(ui, `agentchart: resuming ${sessionId} (${events.length} events${queued}) with ${description}`);
    // Said before the agent starts, so it comes before the question is asked again.
    if (asking) for (const text of waitingLines(asking, sessionId, { canAsk, mode })) line(ui, text);
    const agent = await system.resumeAgent(sessionId);
    // The session goes on in the last mode its log recorded; a --mode (or --yes) given now switches it.
    if (agent.permissionMode !== mode) agent.setPermissionMode(mode);
    const start = async (): Promise<RunResult> => {
      if (message !== undefined) return agent.run(message);
      await agent.whenIdle();
      return lastResult(agent, events.length);
    };
    return await driveSession({
      io,
      json: flags.json ?? false,
      states: flags.states ?? false,
      logFrom: events.length,
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

/**
 * What the session was waiting for, said before anything else happens: each question with the answers the
 * person will be offered (or, with nobody at a terminal, that the mode decides and what still asks is denied).
 */
function waitingLines(
  point: WaitingPoint,
  sessionId: string,
  asker: { canAsk: boolean; mode: string },
): string[] {
  const answers = asker.canAsk
    ? 'allow once / for the session / a prefix (commands) / deny with a reason'
    : `nobody can answer here, so mode ${asker.mode} decides (a call that still needs approval is denied)`;
  return questionsOf(point, sessionId).map((question) => {
    const what = `${question.name} ${summarizeToolInput(question.name, question.input)}`.trim();
    const who = question.sessionId === sessionId ? 'This session' : `Its subagent ${question.sessionId}`;
    return `${who} was waiting for your approval of \`${what}\` — ${answers}`;
  });
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
    // The text of this process's part of the turn: a turn the repair closed has none of its own.
    return { ...turnResult(events, event), text: String(text) };
  }
  throw new CliError('the resumed session ended without running a turn');
}
