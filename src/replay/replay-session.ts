import { ConfigError } from '../errors/config-error.ts';
import type { Provider } from '../providers/types.ts';
import type { Agent } from '../runtime/agent-handle.ts';
import { createAgentSystem } from '../runtime/create-agent-system.ts';
import type { AgentSystemOptions } from '../runtime/options.ts';
import { memoryStore } from '../session/memory-store.ts';
import { replay } from '../session/replay-provider.ts';
import { validateSequence } from '../session/schema.ts';
import { isEvent, type LogEvent } from '../session/types.ts';
import { assertTreeComplete } from './recorded-tree.ts';
import { defaultsFrom, recordedApprover } from './recording-defaults.ts';
import { type RecordingSegment, recordingSegments } from './recording-segments.ts';
import { ReplayClock } from './replay-clock.ts';
import { describeInput, drive, InputFeed } from './replay-drive.ts';
import { type ReplayInput, replayInputs } from './replay-inputs.ts';
import { SegmentLife, segmentModel } from './segment-life.ts';
import { RecordedSubagents, subagentLogs } from './subagent-recordings.ts';

/**
 * What the host gives a replay: its tools, approver, hooks and policies, as for `createAgentSystem`. The
 * model, clock, ids and store belong to the replay; the workspace, mode, limits and system prompt default
 * to what `session.start` recorded.
 */
export type ReplaySetup = Omit<AgentSystemOptions, 'model' | 'clock' | 'ids' | 'store' | 'replay'> & {
  /** `'recorded'`: every tool call is answered from the log and no tool runs; `'live'` (default): `tools` run. */
  toolResults?: 'recorded' | 'live';
};

export type ReplayRunOptions = {
  setup?: ReplaySetup;
  /**
   * Told after each log event the replay writes, once the runtime has taken the step that wrote it, with
   * the subagents live at that moment (a `task` call's child runs while its parent waits for the result).
   */
  onEvent?: (event: LogEvent, agent: Agent, subagents: readonly Agent[]) => void;
  /**
   * The recorded logs of the subagents the session started (and theirs), by session id: each child re-runs
   * from its own log. Needed when the recording has `agent.spawned`; a missing one is a ConfigError.
   */
  subagentLogs?: ReadonlyMap<string, readonly LogEvent[]>;
};

/**
 * The replayed log, and why the replay stopped before the recording's end, if it did; `subagents`, the
 * replayed log of every subagent the replay started, by session id.
 */
export type ReplayRun = { events: LogEvent[]; subagents: Map<string, LogEvent[]>; stopped?: string };

/**
 * Re-runs a recorded session through the real runtime: the model answers with the recorded responses
 * (`replay`), time is the recorded time of each event, inbox ids are the recorded ids, and the inputs
 * (follow-ups, steering, compactions asked for, a person's approvals, mode switches, a user's cancel) are
 * given again at the log positions where the recording has them. A resumed session is run segment by
 * segment (see `recordingSegments`), each with the configuration its process recorded. Without `setup.approve`, approvals are answered as recorded
 * (nobody, when the recording asked nobody: headless decisions come back as logged); with it, the
 * host's approver is asked. Tools run for real. With unchanged behaviour the replayed log equals the
 * recording byte for byte; compare with `assertSameLog`.
 */
export async function replaySession(
  recorded: readonly LogEvent[],
  options: ReplayRunOptions = {},
): Promise<ReplayRun> {
  const start = recorded[0];
  if (!start || !isEvent(start, 'session.start'))
    throw new ConfigError('a replay needs a session log that begins with session.start');
  // Events handed over as an array get the check every log reader applies (a file is checked as read).
  validateSequence(recorded);
  const agentId = String(start.data.agentId);
  const subagents = options.subagentLogs ?? new Map<string, readonly LogEvent[]>();
  assertTreeComplete(agentId, recorded, subagents);
  for (const events of subagents.values()) validateSequence(events);
  const { segments, unrecorded } = recordingSegments(recorded);
  const inputs = replayInputs(recorded);
  let written = () => 0;
  const clock = new ReplayClock(recorded, () => written());
  let primedId: string | undefined;
  let fallbackIds = 0;
  const shared: SharedReplay = {
    recorded,
    agentId,
    clock,
    subagents,
    // Each subagent re-runs from its own log (its model answers, clock, ids, hooks and tool results).
    tree: new RecordedSubagents({ sessionId: agentId, events: recorded }, subagents),
    // One reader of the recorded responses for every segment: each process asked the model in turn.
    responses: replay(recorded, { clock }),
    ids: () => {
      const id = primedId ?? `replay-${++fallbackIds}`;
      primedId = undefined;
      return id;
    },
    prime: (id) => (primedId = id),
    follow: (length) => (written = length),
  };
  let events: LogEvent[] = [];
  const replayedSubagents = new Map<string, LogEvent[]>();
  let stopped: string | undefined;
  for (const segment of segments) {
    const inSegment = inputs.filter((input) => input.atLength >= segment.from && input.atLength < segment.to);
    const part = await replaySegment(shared, { segment, inputs: inSegment, before: events }, options);
    ({ events, stopped } = part);
    for (const [id, log] of part.subagents) replayedSubagents.set(id, log);
    if (stopped) break;
  }
  if (!stopped && unrecorded !== undefined)
    stopped = `the recording goes on after session.end at seq ${unrecorded - 1} without session.resumed: what the resumed process ran with is not recorded (an older agentchart wrote it)`;
  return { events, subagents: replayedSubagents, ...(stopped ? { stopped } : {}) };
}

/** What every segment of one replay shares: the recording, its clock, model responses and ids. */
type SharedReplay = {
  recorded: readonly LogEvent[];
  agentId: string;
  clock: ReplayClock;
  /** The subagents' recorded logs, and the port through which each child launched gets its own. */
  subagents: ReadonlyMap<string, readonly LogEvent[]>;
  tree: RecordedSubagents;
  responses: Provider;
  ids: () => string;
  prime: (id: string) => void;
  /** Points the clock at the log that is being written now. */
  follow: (length: () => number) => void;
};

/**
 * Runs one segment as its process ran: a new system with the segment's configuration, the session created
 * (the first segment) or resumed from what the replay wrote before (`before`), the segment's inputs given,
 * and the end the recording had: dispose (`session.end` is written and compared), or, where the process was
 * killed, the log cut where the recording's ends (nothing after it is kept, and the model and tools are
 * not asked again by this process).
 */
async function replaySegment(
  shared: SharedReplay,
  part: { segment: RecordingSegment; inputs: ReplayInput[]; before: LogEvent[] },
  options: ReplayRunOptions,
): Promise<{ events: LogEvent[]; subagents: Map<string, LogEvent[]>; stopped?: string }> {
  const { segment, inputs, before } = part;
  const { recorded, agentId, subagents, tree } = shared;
  const { toolResults = 'live', ...setup } = options.setup ?? {};
  const segmentEvents = recorded.slice(segment.from, segment.to);
  const approve = setup.approve ?? recordedApprover({ agentId, events: segmentEvents }, inputs, subagents);
  const alive = new SegmentLife();
  const store = memoryStore();
  if (segment.from > 0) {
    await store.create(agentId);
    await store.append(agentId, before);
  }
  shared.follow(() => before.length);
  const system = createAgentSystem({
    ...defaultsFrom(segment.config),
    ...setup,
    ...(setup.tools ? { tools: setup.tools.map((tool) => alive.guard(tool)) } : {}),
    // Nobody approved in a recording that asked nobody: its asks were denied (headless), and are again.
    approve: approve ?? 'deny',
    model: segmentModel(shared.responses, segment.config, alive),
    clock: shared.clock,
    ids: shared.ids,
    store,
    // What the log recorded answers instead of this machine: instruction files, skills, environment,
    // hooks and MCP servers (none runs or is read), and the tool results when they are recorded; each
    // subagent re-runs from its own log.
    replay: { log: recorded, toolResults, ...(subagents.size > 0 ? { subagents: tree } : {}) },
  });
  try {
    const config = recorded[0]!.data.config as Record<string, unknown>;
    const agent =
      segment.from === 0
        ? await system.createAgent({
            id: agentId,
            ...(typeof config.system === 'string' ? { instructions: config.system } : {}),
          })
        : await system.resumeAgent(agentId);
    shared.follow(() => agent.log().length);
    const crashAt = segment.end === 'crashed' ? segment.to : undefined;
    const kept = () => (crashAt === undefined ? agent.log() : agent.log().slice(0, crashAt));
    const subagentsOf = () => system.list().filter((other) => other !== agent);
    // What creation wrote came before anyone could follow the agent's events.
    for (const event of kept().slice(before.length)) options.onEvent?.(event, agent, subagentsOf());
    // Told once the transition that wrote the event is over (a snapshot inside it would be half-made).
    const stopListening = agent.onLog((event) => {
      if (crashAt !== undefined && agent.log().length >= crashAt) alive.end();
      if (crashAt === undefined || event.seq < crashAt)
        queueMicrotask(() => options.onEvent?.(event, agent, subagentsOf()));
    });
    if (crashAt !== undefined && agent.log().length >= crashAt) alive.end();
    const feed = new InputFeed(recorded, inputs, agent, {
      prime: shared.prime,
      mailAt: (recipient, mailId) => shared.tree.mailAt(recipient, mailId),
      holdModel: (held) => alive.hold(held),
    });
    const follow = followEvents(agent, () => feed.sendDue());
    const liveTools = toolResults === 'live';
    const hostDecides = typeof setup.approve === 'function';
    let stopped = await drive({
      agent,
      clock: shared.clock,
      feed,
      over: () => !alive.alive,
      // A subagent works while its `task` call waits: its progress and its timers are the tree's.
      others: tree,
      inFlight: () =>
        openCalls(agent.log(), 'agent.spawned') ||
        (liveTools && openCalls(agent.log(), 'tool.started')) ||
        (hostDecides && agent.pendingApprovals().length > 0),
      maxLength: recorded.length + 50,
      // Background children report to an idle agent: the segment goes on until none is left.
      background: () => subagentsOf().length > 0,
    });
    if (!stopped && feed.left) stopped = `${describeInput(feed.left)} never became due`;
    if (!stopped && crashAt !== undefined && alive.alive)
      stopped = `the recording's process stopped at seq ${crashAt - 1} (killed, then resumed); the replay wrote ${agent.log().length} events and waits in state ${agent.state}`;
    const beforeDispose = kept().slice();
    if (crashAt !== undefined) stopListening();
    await system.dispose();
    stopListening();
    await follow;
    const events = segment.end === 'disposed' ? [...agent.log()] : beforeDispose;
    const replayed = await subagentLogs(store, subagents.keys());
    return { events, subagents: replayed, ...(stopped ? { stopped } : {}) };
  } finally {
    await system.dispose();
  }
}

/**
 * Whether the replayed log has a call opened by `opening` (`tool.started`: a tool runs; `agent.spawned`: a
 * subagent works for its `task` call) without its `tool.result` yet.
 */
function openCalls(events: readonly LogEvent[], opening: 'tool.started' | 'agent.spawned'): boolean {
  const open = new Set<string>();
  for (const event of events) {
    if (event.type === opening) open.add((event.data as { callId: string }).callId);
    else if (isEvent(event, 'tool.result')) open.delete(event.data.callId);
  }
  return open.size > 0;
}

/** Reads the agent's live events until it is disposed, calling `onLog` after each log event. */
async function followEvents(agent: Agent, onLog: () => void): Promise<void> {
  for await (const event of agent.events()) if (event.type === 'log') onLog();
}
