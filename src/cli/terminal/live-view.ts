import type { InspectionEvent } from 'xstate';
import type { LiveEvent } from '../../actors/live-event.ts';
import type { Agent } from '../../runtime/agent-handle.ts';
import type { AgentSystem } from '../../runtime/create-agent-system.ts';
import type { TextOut } from './io.ts';
import { TranscriptRenderer } from './render.ts';

/** The machines whose state changes the live view prints, by the name they are spawned under. */
const machines = new Set(['agent', 'turn', 'step', 'toolBatch']);

export type LiveViewOptions = {
  system: AgentSystem;
  agent: Agent;
  out: TextOut;
  color: boolean;
  /** One JSON line per live event on `out`, and nothing else. */
  json: boolean;
  /** Also called for every live event, after it is rendered. */
  onEvent?: (event: LiveEvent) => void;
  /** The person's tasks are on the screen as typed (the chat): they are not echoed again. */
  typedInput?: boolean;
  /** Print the machines' state changes between the transcript's lines (default false: `--states`). */
  states?: boolean;
  /**
   * With `json`: the log events already written that are emitted first, from this index on (default 0: the
   * whole log of a new session). `session.start` is always the first line.
   */
  logFrom?: number;
};

/**
 * A running view of one agent. Contract: call `stop()` after the agent was disposed; it drains and ends.
 * `setStates` turns the state changes on or off from now on.
 */
export type LiveView = { stop(): Promise<void>; setStates(on: boolean): void };

type PendingTransition = { logLength: number; machine: string; from: string | undefined; to: string };

/**
 * Shows an agent's live events as they happen, with the state changes of its machines in between.
 * Inspection events arrive synchronously while live events arrive through an async iterator, so each state
 * change is stamped with the log length at the moment it happened and printed just before the first log
 * event appended after it.
 */
export function attachLiveView(options: LiveViewOptions): LiveView {
  const { agent, out } = options;
  const iterator = agent.events();
  if (options.json) {
    const written = agent.log();
    const first = Math.max(options.logFrom ?? 0, 0);
    const earlier = [...(first > 0 && written[0] ? [written[0]] : []), ...written.slice(first)];
    for (const event of earlier) out.write(`${JSON.stringify({ type: 'log', agentId: agent.id, event })}\n`);
    const done = drain(iterator, (event) => {
      out.write(`${JSON.stringify(event)}\n`);
      options.onEvent?.(event);
    });
    return { stop: () => done, setStates: () => undefined };
  }
  let states = options.states ?? false;
  const renderer = new TranscriptRenderer(out, options.color, { typedInput: options.typedInput ?? false });
  const pending: PendingTransition[] = [];
  let rendered = agent.log().length;
  let flushScheduled = false;

  const printUpTo = (logLength: number) => {
    while (pending.length > 0 && pending[0]!.logLength <= logLength) {
      const next = pending.shift()!;
      if (states) renderer.transition(next.machine, next.from, next.to);
    }
  };
  const tracker = new TransitionTracker(() => agent.log().length);
  const unsubscribe = options.system.inspect((event: InspectionEvent) => {
    const change = tracker.observe(event);
    if (!change) return;
    pending.push(change);
    if (flushScheduled) return;
    flushScheduled = true;
    // Changes with no log event after them yet (a step waiting on the model) still show up promptly.
    setImmediate(() => {
      flushScheduled = false;
      printUpTo(rendered);
    });
  });
  const done = drain(iterator, (event) => {
    if (event.type === 'log') {
      printUpTo(event.event.seq);
      renderer.event(event);
      rendered = event.event.seq + 1;
    } else {
      printUpTo(rendered);
      renderer.event(event);
    }
    options.onEvent?.(event);
  });
  return {
    stop: async () => {
      await done;
      unsubscribe();
      printUpTo(Number.POSITIVE_INFINITY);
    },
    setStates: (on) => {
      states = on;
    },
  };
}

async function drain(iterator: AsyncIterableIterator<LiveEvent>, handle: (event: LiveEvent) => void) {
  for await (const event of iterator) handle(event);
}

/**
 * Turns inspection events into state changes of the agent machines, each stamped with the log length when
 * it began: a microstep runs its exit, transition and entry actions before it is reported, so what those
 * actions log belongs after the change, not before it.
 */
class TransitionTracker {
  private readonly lastValue = new Map<string, string>();
  private readonly stepStart = new Map<string, number>();

  constructor(private readonly logLength: () => number) {}

  observe(event: InspectionEvent): PendingTransition | undefined {
    // Inspection types the ref loosely; at run time it is a full actor, whose `src` names its logic.
    const { src, sessionId } = event.actorRef as { src?: unknown; sessionId: string };
    const machine = typeof src === 'string' ? src : (src as { id?: unknown } | undefined)?.id;
    if (typeof machine !== 'string' || !machines.has(machine)) return undefined;
    if (event.type === '@xstate.event') {
      this.stepStart.set(sessionId, this.logLength());
      return undefined;
    }
    if (event.type !== '@xstate.microstep' && event.type !== '@xstate.snapshot') return undefined;
    const began = this.stepStart.get(sessionId) ?? this.logLength();
    this.stepStart.set(sessionId, this.logLength());
    const value = (event.snapshot as { value?: unknown }).value;
    if (value === undefined) return undefined;
    const to = stateName(value);
    const from = this.lastValue.get(sessionId);
    if (from === to) return undefined;
    this.lastValue.set(sessionId, to);
    // A new actor ran its initial entry actions before it was first reported: show it after their events.
    return { machine, from, to, logLength: from === undefined ? this.logLength() : began };
  }
}

/** `'idle'` → `idle`; `{ ready: 'running' }` → `ready.running`. */
export function stateName(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return String(value);
  return Object.entries(value as Record<string, unknown>)
    .map(([key, child]) => {
      const inner = stateName(child);
      return inner === '' ? key : `${key}.${inner}`;
    })
    .join(',');
}
