import { ConfigError } from '../errors/config-error.ts';
import { lastContextUse } from '../session/context-tokens.ts';
import { assertSessionStarted, parseLogText, tornLineLeft } from '../session/log-text.ts';
import { errorCode, pathError } from '../session/path-errors.ts';
import { readLogFile } from '../session/read-log-file.ts';
import { type ResumePoint, resumePoint, subagentsToLoad } from '../session/resume-point.ts';
import { sessionFileLocation, sessionFilePath } from '../session/session-files.ts';
import { isEvent, type LogEvent } from '../session/types.ts';
import { compactLogEvent } from './compact.ts';
import { parentOf, recordedState, TurnsView } from './log-view.ts';
import type { AgentsPayload, AgentView, InspectorMessage, InspectorSource } from './protocol.ts';
import { TimeTravel, type TravelAnswer } from './time-travel.ts';

/** One recorded session: its id and events. */
export type RecordedSession = { sessionId: string; events: LogEvent[] };

const maxSessions = 50;

/**
 * Reads a session log file and the logs of the subagents it spawned (`agent.spawned`) when they sit in
 * the same folder. Read-only: a torn last line is skipped with a warning, never truncated on disk. A file
 * that is not a session log with a `session.start` is refused (an empty subagent log is skipped with a
 * warning).
 */
export async function loadRecording(
  file: string,
): Promise<{ sessions: RecordedSession[]; warnings: string[] }> {
  const { dir, sessionId } = sessionFileLocation(file);
  const sessions: RecordedSession[] = [];
  const warnings: string[] = [];
  const queue = [sessionId];
  const seen = new Set(queue);
  while (queue.length > 0 && sessions.length < maxSessions) {
    const id = queue.shift()!;
    const path = sessionFilePath(dir, id);
    const text = await readSessionFile(path, id, id === sessionId);
    if (text === undefined) {
      warnings.push(`subagent session ${id} is not in ${dir}`);
      continue;
    }
    const parsed = parseLogText(text, path);
    if (parsed.torn) warnings.push(tornLineLeft(parsed.torn.warning, 'the file was left as it is'));
    if (id === sessionId) assertSessionStarted(parsed.events, 'delete the file to reuse the id', path);
    else if (parsed.events.length === 0) {
      warnings.push(`subagent session ${id} is empty: its process stopped before it was started`);
      continue;
    }
    sessions.push({ sessionId: id, events: parsed.events });
    for (const event of parsed.events) {
      if (!isEvent(event, 'agent.spawned') || seen.has(event.data.childSessionId)) continue;
      seen.add(event.data.childSessionId);
      queue.push(event.data.childSessionId);
    }
  }
  return { sessions, warnings };
}

async function readSessionFile(path: string, id: string, required: boolean): Promise<string | undefined> {
  try {
    return await readLogFile(path, `read session "${id}"`);
  } catch (error) {
    // A folder, an unreadable file or a path through a file is a ConfigError naming it, never a raw EISDIR.
    if (errorCode(error) !== 'ENOENT') throw pathError(error, `read session "${id}"`, path);
    if (required) throw new ConfigError(`session log ${path} does not exist`, { cause: error });
    return undefined;
  }
}

/** The inspector's view of recorded sessions: the final states derived from the log, and no live stream. */
export class RecordedSource implements InspectorSource {
  readonly kind = 'recorded';
  private readonly views: AgentView[];
  private readonly timeTravel = new TimeTravel();

  constructor(
    private readonly sessions: readonly RecordedSession[],
    private readonly title: string,
  ) {
    const points = resumePoints(sessions);
    this.views = sessions.map((session) => recordedView(session, points.get(session.sessionId)!));
  }

  agents(): AgentsPayload {
    return { source: 'recorded', title: this.title, agents: this.views };
  }

  log(agentId: string): LogEvent[] | undefined {
    return this.sessions
      .find((session) => session.sessionId === agentId)
      ?.events.map((event) => compactLogEvent(event));
  }

  travel(agentId: string, seq: number): Promise<TravelAnswer | undefined> {
    const session = this.sessions.find((candidate) => candidate.sessionId === agentId);
    if (!session) return Promise.resolve(undefined);
    // The other sessions of the recording: a session that started subagents re-runs them from their logs.
    const others = this.sessions.filter((other) => other !== session);
    const subagentLogs = new Map(others.map((other) => [other.sessionId, other.events]));
    return this.timeTravel.at(agentId, session.events, seq, subagentLogs);
  }

  subscribe(_listener: (message: InspectorMessage) => void): () => void {
    // A recording does not change: the snapshot sent on connect is all there is.
    return () => {};
  }

  async close(): Promise<void> {}
}

/** Where each recorded session would continue, its subagents' sessions read from the recording too. */
function resumePoints(sessions: readonly RecordedSession[]): Map<string, ResumePoint> {
  const byId = new Map(sessions.map((session) => [session.sessionId, session.events]));
  const points = new Map<string, ResumePoint>();
  const pointOf = (sessionId: string, events: readonly LogEvent[], depth: number): ResumePoint => {
    const known = points.get(sessionId);
    if (known) return known;
    const children = new Map<string, ResumePoint>();
    for (const childId of depth < maxSessions ? subagentsToLoad(events) : []) {
      const childEvents = byId.get(childId);
      if (childEvents) children.set(childId, pointOf(childId, childEvents, depth + 1));
    }
    const point = resumePoint(events, children);
    points.set(sessionId, point);
    return point;
  };
  for (const session of sessions) pointOf(session.sessionId, session.events, 0);
  return points;
}

function recordedView(session: RecordedSession, point: ResumePoint): AgentView {
  const turns = new TurnsView(Number.POSITIVE_INFINITY);
  for (const event of session.events) turns.apply(event);
  const parent = parentOf(session.events);
  return {
    id: session.sessionId,
    ...(parent !== undefined ? { parent } : {}),
    state: recordedState(session.events, point),
    live: false,
    turns: turns.view(Number.POSITIVE_INFINITY),
    logLength: session.events.length,
    context: recordedContext(session.events),
    recent: session.events.slice(-50).map((event) => compactLogEvent(event)),
  };
}

/** The context at the recording's last answered request, against the window `session.start` recorded. */
function recordedContext(events: readonly LogEvent[]): AgentView['context'] {
  const { usedTokens } = lastContextUse(events);
  const start = events[0];
  const window = start && isEvent(start, 'session.start') ? start.data.config.contextWindow : undefined;
  return typeof window === 'number' ? { usedTokens, contextWindow: window } : { usedTokens };
}
