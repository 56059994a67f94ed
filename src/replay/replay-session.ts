import type { Approver } from '../actors/approval.ts';
import { ConfigError } from '../errors/config-error.ts';
import { messageOf } from '../errors/describe-value.ts';
import { isPermissionMode, type PermissionMode, permissionModes } from '../permissions/modes.ts';
import type { Provider } from '../providers/types.ts';
import type { Agent } from '../runtime/agent-handle.ts';
import { createAgentSystem } from '../runtime/create-agent-system.ts';
import type { AgentSystemOptions, CompactionOptions, Limits } from '../runtime/options.ts';
import { memoryStore } from '../session/memory-store.ts';
import { replay } from '../session/replay-provider.ts';
import { validateSequence } from '../session/schema.ts';
import { isEvent, type LogEvent } from '../session/types.ts';
import { ReplayClock } from './replay-clock.ts';
import { hostDecisions, type ReplayInput, replayInputs } from './replay-inputs.ts';

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
  /** Told after each log event the replay writes, once the runtime has taken the step that wrote it. */
  onEvent?: (event: LogEvent, agent: Agent) => void;
};

/** The replayed log, and why the replay stopped before the recording's end, if it did. */
export type ReplayRun = { events: LogEvent[]; stopped?: string };

/**
 * Re-runs a recorded session through the real runtime: the model answers with the recorded responses
 * (`replay`), time is the recorded time of each event, inbox ids are the recorded ids, and the inputs
 * (follow-ups, steering, compactions asked for, a person's approvals) are given again at the log
 * positions where the recording has them. Without `setup.approve`, approvals are answered as recorded
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
  if (recorded.some((event) => isEvent(event, 'agent.spawned')))
    throw new ConfigError(
      'this session started subagents (agent.spawned); replaying a tree of sessions is not supported yet',
    );
  const config = start.data.config as Record<string, unknown>;
  const { toolResults = 'live', ...setup } = options.setup ?? {};
  let agent: Agent | undefined;
  const written = () => agent?.log().length ?? 0;
  const clock = new ReplayClock(recorded, written);
  let primedId: string | undefined;
  let fallbackIds = 0;
  const inputs = replayInputs(recorded);
  const approve = setup.approve ?? recordedApprover(recorded, inputs);
  const system = createAgentSystem({
    ...defaultsFrom(config),
    ...setup,
    ...(approve !== undefined ? { approve } : {}),
    model: recordedModel(recorded, config, clock),
    clock,
    ids: () => {
      const id = primedId ?? `replay-${++fallbackIds}`;
      primedId = undefined;
      return id;
    },
    store: memoryStore(),
    // What the log recorded answers instead of this machine: instruction files, skills, environment,
    // hooks and MCP servers (none runs or is read), and the tool results when they are recorded.
    replay: { log: recorded, toolResults },
  });
  let stopped: string | undefined;
  let next = 0;
  const sendDue = () => {
    for (; next < inputs.length && !stopped; next++) {
      const input = inputs[next]!;
      if (written() < input.atLength) return;
      // Input that follows a turn's end was given once that turn was over (as after `await run()`).
      const after = recorded[input.atLength - 1]?.type;
      if (
        (after === 'turn.end' || after === 'session.start') &&
        written() === input.atLength &&
        agent!.state !== 'ready.idle'
      )
        return;
      if (written() > input.atLength) {
        stopped = `the recording received ${describeInput(input)} when its log held ${input.atLength} events; the replay had written ${written()} by then`;
        return;
      }
      try {
        send(agent!, input, (id) => (primedId = id));
      } catch (error) {
        stopped = `${describeInput(input)} failed: ${messageOf(error)}`;
      }
    }
  };
  try {
    agent = await system.createAgent({
      id: String(start.data.agentId),
      ...(typeof config.system === 'string' ? { instructions: config.system } : {}),
    });
    // What creation wrote (`session.start`) came before anyone could follow the agent's events.
    for (const event of agent.log()) options.onEvent?.(event, agent);
    const created = agent;
    // Told once the transition that wrote the event is over (a snapshot inside it would be half-made).
    const stopListening = created.onLog((event) => queueMicrotask(() => options.onEvent?.(event, created)));
    const follow = followEvents(agent, () => sendDue());
    stopped = await drive(agent, clock, sendDue, () => stopped, recorded.length);
    if (!stopped && next < inputs.length) stopped = `${describeInput(inputs[next]!)} never became due`;
    const ended = recorded.at(-1)?.type === 'session.end';
    const before = [...agent.log()];
    await system.dispose();
    stopListening();
    await follow;
    return { events: ended ? [...agent.log()] : before, ...(stopped ? { stopped } : {}) };
  } finally {
    await system.dispose();
  }
}

/**
 * Who answers approvals when the host gives no approver: whoever did in the recording, so every decision
 * replays as logged. Nobody, when nothing was put to anyone (`approval.asked`): the calls that asked were
 * denied headless, and are again. A person (`manual`: the recorded `agent.approve`/`deny` are inputs)
 * when the recording has a person's decisions; else the host's recorded answers, call by call.
 */
function recordedApprover(
  recorded: readonly LogEvent[],
  inputs: readonly ReplayInput[],
): Approver | undefined {
  if (!recorded.some((event) => isEvent(event, 'approval.asked'))) return undefined;
  if (inputs.some((input) => input.kind === 'decision')) return 'manual';
  const decisions = hostDecisions(recorded);
  // A question the recording has no answer for stays open: the replay stops there, as it waits.
  return ({ callId }) => {
    const decision = decisions.get(callId);
    return decision ? Promise.resolve(decision) : new Promise(() => {});
  };
}

/** What `session.start` recorded about how the session ran, as system options. */
function defaultsFrom(config: Record<string, unknown>): Partial<AgentSystemOptions> {
  const mode = permissionModes.find((known) => known === config.permissionMode) as PermissionMode | undefined;
  return {
    ...(typeof config.cwd === 'string' ? { cwd: config.cwd } : {}),
    ...(mode ? { permissionMode: mode } : {}),
    ...(config.limits && typeof config.limits === 'object'
      ? { limits: config.limits as Partial<Limits> }
      : {}),
    // Checked by createAgentSystem like any option: a damaged policy is a ConfigError naming it.
    ...(config.compaction && typeof config.compaction === 'object'
      ? { compaction: config.compaction as CompactionOptions }
      : {}),
  };
}

/** The replay provider, named as the recorded one (its name and model are in `session.start`). */
function recordedModel(
  recorded: readonly LogEvent[],
  config: Record<string, unknown>,
  clock: ReplayClock,
): Provider {
  const inner = replay(recorded, { clock });
  return {
    name: typeof config.provider === 'string' ? config.provider : inner.name,
    model: inner.model,
    ...(inner.contextWindow !== undefined ? { contextWindow: inner.contextWindow } : {}),
    stream: (request, signal) => inner.stream(request, signal),
  };
}

function send(agent: Agent, input: ReplayInput, prime: (id: string) => void): void {
  switch (input.kind) {
    case 'message':
      prime(input.id);
      if (input.channel === 'followup') agent.followup(input.message);
      else if (input.channel === 'steer') agent.steer(input.message);
      else agent.inject(input.message);
      return;
    case 'compact':
      // Its outcome is in the log; a compaction that fails shows there as a divergence.
      agent.compact().catch(() => undefined);
      return;
    case 'decision':
      if (input.outcome === 'deny') agent.deny(input.callId, input.reason);
      else if (input.outcome === 'allow' && isPermissionMode(input.mode))
        agent.approve(input.callId, { mode: input.mode });
      else if (input.outcome === 'allow') agent.approve(input.callId);
      else agent.approve(input.callId, { remember: 'session', ...(input.rule ? { rule: input.rule } : {}) });
      return;
    case 'mode':
      if (isPermissionMode(input.mode)) agent.setPermissionMode(input.mode, { by: input.by });
      return;
  }
}

function describeInput(input: ReplayInput): string {
  if (input.kind === 'mode') return `agent.setPermissionMode("${input.mode}")`;
  if (input.kind === 'message') return `${input.channel} "${input.message.slice(0, 60)}"`;
  if (input.kind === 'compact') return 'agent.compact()';
  return `${input.outcome === 'deny' ? 'a denial' : 'an approval'} of call ${input.callId}`;
}

/** Reads the agent's live events until it is disposed, calling `onLog` after each log event. */
async function followEvents(agent: Agent, onLog: () => void): Promise<void> {
  for await (const event of agent.events()) if (event.type === 'log') onLog();
}

const settleRounds = 5;
/** How long the runtime may work on real I/O (a tool reading files) without writing anything. */
const maxQuietMs = 10_000;

/**
 * Lets the runtime work until nothing more can happen by itself: due inputs are sent, timers fire when
 * the runtime waits on them, and the drive ends when the agent is idle, waits for a person with no
 * recorded answer left, or the replay has been stopped. Returns why it stopped early, if it did.
 */
async function drive(
  agent: Agent,
  clock: ReplayClock,
  sendDue: () => void,
  stopped: () => string | undefined,
  recordedLength: number,
): Promise<string | undefined> {
  let quietSince = performance.now();
  let length = -1;
  for (;;) {
    for (let i = 0; i < settleRounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
    sendDue();
    if (stopped()) return stopped();
    const now = agent.log().length;
    if (now !== length) {
      length = now;
      quietSince = performance.now();
      continue;
    }
    if (clock.fireNext()) continue;
    if (agent.state === 'ready.idle' || agent.pendingApprovals().length > 0 || now >= recordedLength + 50)
      return undefined;
    // Real work (file I/O of a tool) is in flight: give it real time, within a bound.
    if (performance.now() - quietSince > maxQuietMs)
      return `the runtime wrote nothing for ${maxQuietMs / 1000} s in state ${agent.state}`;
    await new Promise<void>((resolve) => setTimeout(resolve, 1));
  }
}
