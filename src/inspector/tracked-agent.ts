import type { Agent } from '../runtime/agent-handle.ts';
import type { LogEvent } from '../session/types.ts';
import { compactLogEvent, compactValue } from './compact.ts';
import { parentOf, TurnsView } from './log-view.ts';
import type { AgentView } from './protocol.ts';

/** How many of an agent's last log events its view carries. */
const recentCount = 50;

/** An agent being followed while someone watches: its derived turns and its last log events. */
export type Tracked = { agent: Agent; turns: TurnsView; recent: LogEvent[]; lastSummary: string };

/** A fresh entry for `agent`, built from the log it has so far. */
export function track(agent: Agent): Tracked {
  const turns = new TurnsView();
  const log = agent.log();
  for (const event of log) turns.apply(event);
  return {
    agent,
    turns,
    recent: log.slice(-recentCount).map((event) => compactLogEvent(event)),
    lastSummary: '',
  };
}

/**
 * Takes one new log event into the entry; returns its compact form, or undefined for an event the entry
 * already has (the log read on subscribe and the live stream overlap).
 */
export function takeLogEvent(entry: Tracked, event: LogEvent): LogEvent | undefined {
  if (event.seq < entry.turns.logLength) return undefined;
  entry.turns.apply(event);
  const compact = compactLogEvent(event);
  entry.recent.push(compact);
  if (entry.recent.length > recentCount) entry.recent.shift();
  return compact;
}

/** What the page shows of one agent; `live` is false once it is disposed. */
export function agentView(entry: Tracked, live: boolean): AgentView {
  const { agent } = entry;
  const parent = parentOf(agent.log());
  return {
    id: agent.id,
    ...(parent !== undefined ? { parent } : {}),
    state: agent.state,
    live,
    tree: compactValue(agent.snapshot(), {
      maxString: 200,
      maxDepth: 40,
      maxEntries: 100,
    }) as AgentView['tree'],
    turns: entry.turns.view(),
    logLength: agent.log().length,
    context: agent.snapshot().contextUsage,
    recent: [...entry.recent],
  };
}

/** Whether the log says the call asked for approval and has neither a decision nor a result yet. */
export function waitsForApproval(events: readonly LogEvent[], callId: string): boolean {
  let asked = false;
  for (const event of events) {
    if (event.data.callId !== callId) continue;
    if (event.type === 'approval.asked') asked = true;
    if (event.type === 'approval.decided' || event.type === 'tool.result') asked = false;
  }
  return asked;
}
