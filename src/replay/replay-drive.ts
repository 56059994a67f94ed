// How a replay moves the runtime along: it gives the recorded inputs at their log positions, fires the
// replay clock's timers when the runtime waits on them, and waits for events (a log entry, a timer set),
// never for an amount of time. What makes progress without the replay's help is only real work in flight:
// a live tool running, or the host's approver deciding.
import { messageOf } from '../errors/describe-value.ts';
import { isPermissionMode } from '../permissions/modes.ts';
import type { Agent } from '../runtime/agent-handle.ts';
import type { LogEvent } from '../session/types.ts';
import type { JsonSchemaObject } from '../tools/tool-input.ts';
import type { ReplayClock } from './replay-clock.ts';
import type { ReplayInput } from './replay-inputs.ts';

/** The log types after which input was given once the agent was idle (as after `await run()`). */
const givenWhenIdle = new Set(['turn.end', 'session.start', 'session.resumed']);

/** What the feed needs besides the agent: the id its next input is given, and where mail was queued. */
export type FeedPorts = {
  /** The inbox id the next message input gets (the recording's). */
  prime: (id: string) => void;
  /** How many events the recipient's recording held when it queued mail `mailId` (see `SubagentRecordings`). */
  mailAt: (recipientId: string, mailId: string) => number | undefined;
  /** Holds the agent's model answers while an input is due that cannot be given yet (see `SegmentLife`). */
  holdModel: (held: boolean) => void;
};

/**
 * Gives `inputs` (those of one segment of the recording, in log order) to `agent` when its log holds as
 * many events as the recording's did when it received each; `stopped` says why the replay cannot go on.
 */
export class InputFeed {
  stopped: string | undefined;
  /** A host's message is due in the agent's log but its recipient's log is not yet where the recording's was. */
  waitsForOthers = false;
  private next = 0;

  constructor(
    private readonly recorded: readonly LogEvent[],
    private readonly inputs: readonly ReplayInput[],
    private readonly agent: Agent,
    private readonly ports: FeedPorts,
  ) {}

  /** The input that was never given, if one is left. */
  get left(): ReplayInput | undefined {
    return this.inputs[this.next];
  }

  /**
   * Gives the inputs that are due; a cancel only when `quiet` (the runtime has done all it could by itself
   * at this log length: a response streamed as far as the recording's went). Says whether it gave any.
   */
  sendDue(quiet = false): boolean {
    const { agent } = this;
    const written = agent.log().length;
    const from = this.next;
    for (; this.next < this.inputs.length && !this.stopped; this.next++) {
      const input = this.inputs[this.next]!;
      if (written < input.atLength) break;
      if (input.kind === 'cancel' && !quiet && written === input.atLength) break;
      const after = this.recorded[input.atLength - 1]?.type ?? '';
      if (givenWhenIdle.has(after) && written === input.atLength && agent.state !== 'ready.idle') break;
      if (written > input.atLength) {
        this.stopped = `the recording received ${describeInput(input)} when its log held ${input.atLength} events; the replay had written ${written} by then`;
        break;
      }
      if (input.kind === 'hostMail' && !this.recipientReady(input)) break;
      try {
        send(agent, input, this.ports.prime);
      } catch (error) {
        this.stopped = `${describeInput(input)} failed: ${messageOf(error)}`;
      }
    }
    return this.next > from;
  }

  /**
   * A host's message is delivered in one step with its `message.sent`, so both logs must be where the
   * recording's were: until the recipient's is, the feed waits (`waitsForOthers`); past it, the replay has
   * gone another way.
   */
  private recipientReady(input: ReplayInput & { kind: 'hostMail' }): boolean {
    const at = this.ports.mailAt(input.to, input.id);
    const child = this.agent.children().find((candidate) => candidate.id === input.to);
    const length = child?.status === 'running' ? child.log().length : undefined;
    this.waitsForOthers = at !== undefined && length !== undefined && length < at;
    if (at !== undefined && length !== undefined && length > at)
      this.stopped = `the recording gave ${describeInput(input)} when ${input.to}'s log held ${at} events; the replay's held ${length}`;
    this.ports.holdModel(this.waitsForOthers);
    return !this.waitsForOthers && this.stopped === undefined;
  }
}

/** What the drive needs to know about one segment of the replay. */
export type DriveOptions = {
  agent: Agent;
  clock: ReplayClock;
  feed: InputFeed;
  /** True once the segment is over (the point where the recording's process was killed is reached). */
  over: () => boolean;
  /** True while real work the runtime waits for is under way (a live tool, the host's approver, a subagent). */
  inFlight: () => boolean;
  /** The other sessions of a tree replay (subagents): their timers, their progress and when they set a timer. */
  others?: OtherSessions;
  /** Past this many events the replay has gone another way: stop rather than run on. */
  maxLength: number;
  /** True while background agents of the tree still work: an idle agent may yet hear from them. */
  background?: () => boolean;
};

/** The subagents of a tree replay, as the drive sees them (see `RecordedSubagents`). */
export type OtherSessions = {
  /** Fires the first due timer of any of them; false when none is due. */
  fireNext(): boolean;
  /** How many events their logs hold together (it grows while any of them works). */
  written(): number;
  /** Calls `listener` whenever any of them sets a timer; returns how to stop. */
  onTimerSet(listener: () => void): () => void;
};

/** Rounds of the event loop in which promise chains without real I/O (the memory store, recorded answers) settle. */
const settleRounds = 5;

/**
 * Lets the runtime work until nothing more can happen by itself: due inputs are given, timers fire when
 * the runtime waits on them, real work in flight is waited for by its events, and the drive ends when the
 * agent is idle, waits for a person with no recorded answer left, the segment is over, or the replay has
 * been stopped. Returns why it stopped early, if it did.
 */
export async function drive(options: DriveOptions): Promise<string | undefined> {
  const { agent, clock, feed } = options;
  let length = -1;
  for (;;) {
    for (let i = 0; i < settleRounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
    feed.sendDue();
    if (feed.stopped) return feed.stopped;
    if (options.over()) return undefined;
    const written = agent.log().length;
    const now = written + (options.others?.written() ?? 0);
    if (now !== length) {
      length = now;
      continue;
    }
    if (feed.sendDue(true)) continue;
    if (feed.stopped) return feed.stopped;
    // A host's message waits for its recipient: the other sessions go first, this one must not move on.
    const fired = feed.waitsForOthers
      ? options.others?.fireNext() || clock.fireNext()
      : clock.fireNext() || options.others?.fireNext();
    if (fired) continue;
    const idle = agent.state === 'ready.idle' && !options.background?.();
    if (idle || written >= options.maxLength) return undefined;
    if (options.inFlight()) {
      await nextChange(agent, clock, options.others);
      continue;
    }
    if (agent.pendingApprovals().length > 0) return undefined;
    return `the runtime waits in state ${agent.state} for nothing the recording gives (no input due, no timer, no work in flight)`;
  }
}

/**
 * Resolves at the runtime's next log event or the next timer it (or a subagent) sets, whichever comes
 * first. A subagent's own log events need no waking: its `task` call's result is the parent's next event.
 */
function nextChange(agent: Agent, clock: ReplayClock, others: OtherSessions | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stopLog();
      stopTimers();
      stopOthers?.();
      resolve();
    };
    const stopLog = agent.onLog(done);
    const stopTimers = clock.onTimerSet(done);
    const stopOthers = others?.onTimerSet(done);
  });
}

function send(agent: Agent, input: ReplayInput, prime: (id: string) => void): void {
  switch (input.kind) {
    case 'message':
      prime(input.id);
      // A typed run is given again with the JSON Schema it logged; the replay answers its checks with the
      // recorded verdicts, and the run's result is the log's, read by the replay, not this promise.
      if (input.output) {
        const { schema, maxRetries } = input.output;
        const typed = { output: schema as JsonSchemaObject, maxOutputRetries: maxRetries };
        agent.run(input.message, typed).catch(() => undefined);
      } else if (input.channel === 'followup') agent.followup(input.message);
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
    case 'cancel':
      agent.cancel('user', input.clearInbox ? { clearInbox: true } : {});
      return;
    case 'hostMail': {
      const child = agent.children().find((candidate) => candidate.id === input.to);
      if (!child) throw new Error(`agent ${input.to} is not a background child of ${agent.id}`);
      child.send(input.text);
      return;
    }
  }
}

export function describeInput(input: ReplayInput): string {
  if (input.kind === 'mode') return `agent.setPermissionMode("${input.mode}")`;
  if (input.kind === 'message') return `${input.channel} "${input.message.slice(0, 60)}"`;
  if (input.kind === 'compact') return 'agent.compact()';
  if (input.kind === 'cancel') return 'agent.cancel()';
  if (input.kind === 'hostMail') return `child.send("${input.text.slice(0, 60)}") to ${input.to}`;
  return `${input.outcome === 'deny' ? 'a denial' : 'an approval'} of call ${input.callId}`;
}
