// What the background-agents SIGKILL test shares between the child process it kills and the process that
// resumes: a parent with two background children on the file store, a scripted model routed by prompt,
// gates that hold an agent in a tool until the crash, and a store that says what is durable, so the killed
// process can report the moment its files hold the state to crash in (never a sleep).
import { z } from 'zod';
import type { ModelRequest } from '../../src/providers/types.ts';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { fileStore } from '../../src/session/file-store.ts';
import { backgroundSpawns } from '../../src/session/mail-log.ts';
import {
  isEvent,
  type LoadedSession,
  type LogEvent,
  type SessionLock,
  type SessionStore,
} from '../../src/session/types.ts';
import { backgroundAgentTools } from '../../src/tools/background-agents.ts';
import { defineTool } from '../../src/tools/define-tool.ts';
import { counterIds, echoTool, routedModel, stepIndex, tickingClock } from './crash-kit.ts';
import { call, startedIds } from './mail-kit.ts';

/**
 * The two crashes. `mid-step`: the parent is held in a tool while child A has finished (its result queued
 * in the parent, unread), child B is held in a tool, and B's message to the parent is queued, unread.
 * `waiting`: the parent's turn rests in `waitingForAgents` (A's result read), child B is held in a tool,
 * and the parent's message to B is queued at B, unread.
 */
export type KillScenario = 'mid-step' | 'waiting';

/** The parent's prompt in each scenario (its children's prompts are routes of their own). */
export const parentPrompts: Record<KillScenario, string> = {
  'mid-step': 'supervise, held mid-step',
  waiting: 'supervise, then wait',
};

/** Holds agents in tools: `gate` never returns; `await_gate` returns once the named gate holds someone. */
export class Gates {
  private readonly opened = new Map<string, () => void>();
  private readonly held = new Map<string, Promise<void>>();

  /** Resolves once gate `name` holds an agent. */
  reached(name: string): Promise<void> {
    let promise = this.held.get(name);
    if (!promise) {
      promise = new Promise<void>((resolve) => this.opened.set(name, resolve));
      this.held.set(name, promise);
    }
    return promise;
  }

  enter(name: string): void {
    void this.reached(name);
    this.opened.get(name)!();
  }
}

/** A gate's tools. A resumed process passes none: a call that was held must never run again. */
function gateTools(gates: Gates | undefined) {
  const refuse = (name: string) => {
    throw new Error(`${name} ran in the resumed process: a call the crash cut short ran again`);
  };
  const gate = defineTool({
    name: 'gate',
    description: 'Holds the caller until the process ends',
    access: 'none',
    concurrencySafe: true,
    input: z.object({ name: z.string() }),
    run: ({ name }) => {
      if (!gates) return refuse('gate');
      gates.enter(name);
      return new Promise<string>(() => {});
    },
  });
  const awaitGate = defineTool({
    name: 'await_gate',
    description: 'Returns once the named gate holds an agent',
    access: 'none',
    concurrencySafe: true,
    input: z.object({ name: z.string() }),
    run: async ({ name }) => {
      if (!gates) return refuse('await_gate');
      await gates.reached(name);
      return `gate ${name} holds its agent`;
    },
  });
  return [gate, awaitGate];
}

/** A worker's route: its steps, then its final text at every step after them. */
function worker(steps: ReturnType<typeof calls>[], text: string) {
  return (request: ModelRequest) => steps[stepIndex(request)] ?? { text };
}

function calls(prefix: string, list: { name: string; input: Record<string, unknown> }[]) {
  return { toolCalls: list.map((entry, index) => ({ id: `${prefix}-${index}`, ...entry })) };
}

/** How many children's results the parent has read: it ends its turn only once it heard from both. */
function parentAnswer(request: ModelRequest) {
  const results = request.messages.filter(
    (message) => message.role === 'user' && /^Agent \S+ finished \(/m.test(message.content),
  );
  return { text: results.length >= 2 ? 'All reported.' : 'Waiting for the others.' };
}

const routes = {
  [parentPrompts['mid-step']]: (request: ModelRequest) => {
    const step = stepIndex(request);
    if (step === 0)
      return calls('p0', [
        call('spawn_agent', { prompt: 'worker A' }),
        call('spawn_agent', { prompt: 'worker B' }),
      ]);
    if (step === 1) return calls('p1', [call('gate', { name: 'parent' })]);
    return parentAnswer(request);
  },
  // A ends only once the parent is held: its result then waits, unread, in the parent's inbox.
  'worker A': [calls('a0', [call('await_gate', { name: 'parent' })]), { text: 'A result' }],
  'worker B': [
    calls('b0', [call('await_gate', { name: 'parent' })]),
    calls('b1', [
      call('echo', { text: 'B works' }),
      call('send_message', { to: 'parent', text: 'B: halfway.' }),
    ]),
    calls('b2', [call('gate', { name: 'B' })]),
    { text: 'B result' },
  ],
  [parentPrompts.waiting]: (request: ModelRequest) => {
    const step = stepIndex(request);
    if (step === 0)
      return calls('p0', [
        call('spawn_agent', { prompt: 'worker C' }),
        call('spawn_agent', { prompt: 'worker D' }),
      ]);
    if (step === 1) return calls('p1', [call('await_gate', { name: 'D' })]);
    const d = startedIds(request)[1];
    if (step === 2 && d !== undefined)
      return calls('p2', [call('send_message', { to: d, text: 'Short form, please.' })]);
    return parentAnswer(request);
  },
  'worker C': worker([], 'C result'),
  'worker D': worker(
    [calls('d0', [call('echo', { text: 'D works' })]), calls('d1', [call('gate', { name: 'D' })])],
    'D result',
  ),
};

/** The system both processes run: file store in `dir`; `gates` only in the process that is killed. */
export function killSystem(options: { dir: string; idPrefix: string; gates?: Gates; store?: SessionStore }) {
  return createAgentSystem({
    model: routedModel(routes),
    tools: [echoTool, ...gateTools(options.gates), ...backgroundAgentTools()],
    store: options.store ?? fileStore(options.dir),
    ids: counterIds(options.idPrefix),
    clock: tickingClock(),
    projectInstructions: false,
    permissionMode: 'bypass',
  }) satisfies AgentSystem;
}

/** A store that tells, after each write that reached `inner`, every session's durable events. */
export class DurableView implements SessionStore {
  readonly kind = 'durable-view';
  private readonly durable = new Map<string, LogEvent[]>();

  constructor(
    private readonly inner: SessionStore,
    private readonly onWrite: (logs: ReadonlyMap<string, readonly LogEvent[]>) => void,
  ) {}

  async create(sessionId: string): Promise<void> {
    await this.inner.create(sessionId);
    this.durable.set(sessionId, []);
  }

  async append(sessionId: string, events: readonly LogEvent[]): Promise<void> {
    await this.inner.append(sessionId, events);
    this.durable.set(sessionId, [...(this.durable.get(sessionId) ?? []), ...events]);
    this.onWrite(this.durable);
  }

  async remove(sessionId: string): Promise<void> {
    await this.inner.remove(sessionId);
    this.durable.delete(sessionId);
  }

  load(sessionId: string): Promise<LoadedSession> {
    return this.inner.load(sessionId);
  }

  exists(sessionId: string): Promise<boolean> {
    return this.inner.exists(sessionId);
  }

  list(): Promise<string[]> {
    return this.inner.list();
  }

  lock(sessionId: string): Promise<SessionLock> {
    return this.inner.lock!(sessionId);
  }

  outputsFolder(sessionId: string): string {
    return this.inner.outputsFolder!(sessionId);
  }
}

/** The parent's background children by prompt (`worker A` → its session id), from the parent's log. */
export function childrenByPrompt(parent: readonly LogEvent[]): Map<string, string> {
  return new Map(backgroundSpawns(parent).map((spawn) => [spawn.prompt, spawn.childId]));
}

/** Whether a step of `events` claimed any of `ids` (mail read by the model). */
function claimedIn(events: readonly LogEvent[], ids: readonly unknown[]): boolean {
  return events.some(
    (event) => isEvent(event, 'inbox.claimed') && event.data.ids.some((id) => ids.includes(id)),
  );
}

/** The `inbox.queued` of `events` from `from` (of `kind`), and whether a step claimed it. */
function queuedFrom(events: readonly LogEvent[], from: string | undefined, kind: 'result' | 'message') {
  const claimed = new Set(events.flatMap((event) => (isEvent(event, 'inbox.claimed') ? event.data.ids : [])));
  return events.flatMap((event) =>
    isEvent(event, 'inbox.queued') && event.data.from === from && (event.data.kind ?? 'message') === kind
      ? [{ id: event.data.id, claimed: claimed.has(event.data.id) }]
      : [],
  );
}

const started = (events: readonly LogEvent[] | undefined, callId: string) =>
  events?.some((event) => event.type === 'tool.started' && event.data.callId === callId) === true;

/**
 * Whether `logs` (what is durable) hold the state a scenario crashes in. `mid-step`: the parent held in
 * `gate`, A's result and B's message sent and not read by the parent (its log, flushed before its next
 * model request, does not hold them yet), A's session ended, B held in `gate`. `waiting`: the parent's one
 * turn open, its last step ended with an answer without calls (the turn rests in `waitingForAgents`), C's
 * result read, its message to D sent; C's session ended; D held in `gate` with that message unread.
 */
export function crashStateReached(
  scenario: KillScenario,
  logs: ReadonlyMap<string, readonly LogEvent[]>,
): boolean {
  const parent = logs.get('parent') ?? [];
  const children = childrenByPrompt(parent);
  if (scenario === 'mid-step') {
    const [a, b] = [logs.get(children.get('worker A') ?? ''), logs.get(children.get('worker B') ?? '')];
    const sent = (events: readonly LogEvent[] | undefined, kind: 'result' | 'message') =>
      events?.find(
        (event) =>
          isEvent(event, 'message.sent') &&
          event.data.to === 'parent' &&
          (event.data.kind ?? 'message') === kind,
      );
    const result = sent(a, 'result');
    const message = sent(b, 'message');
    return (
      started(parent, 'p1-0') &&
      result !== undefined &&
      message !== undefined &&
      !claimedIn(parent, [result.data.id, message.data.id]) &&
      a?.at(-1)?.type === 'session.end' &&
      started(b, 'b2-0')
    );
  }
  const [c, d] = [children.get('worker C'), children.get('worker D')];
  const lastAnswer = parent.findLast((event) => isEvent(event, 'assistant.message'));
  const toD = parent.find((event) => isEvent(event, 'message.sent') && event.data.to === d);
  return (
    queuedFrom(parent, c, 'result').some((item) => item.claimed) &&
    toD !== undefined &&
    !claimedIn(logs.get(d ?? '') ?? [], [toD.data.id]) &&
    parent.at(-1)?.type === 'step.end' &&
    lastAnswer !== undefined &&
    isEvent(lastAnswer, 'assistant.message') &&
    lastAnswer.data.toolCalls.length === 0 &&
    !parent.some((event) => event.type === 'turn.end') &&
    logs.get(c ?? '')?.at(-1)?.type === 'session.end' &&
    started(logs.get(d ?? ''), 'd1-0')
  );
}
