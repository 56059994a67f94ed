// Every message sent is delivered exactly once, whatever event a crash stops the system at: a parent with
// two background children (a message each way, two results) is recorded once; then for random cuts of
// its store's writes, a new system resumes the parent from what was durable, its children come back from
// their own logs, and the run is driven until nothing more happens (and, for half the cases, is cut again
// at a random event of that resumed run and resumed once more). Every `message.sent` then has exactly
// one `inbox.queued` in its recipient's log (and nothing was delivered that was not sent), every child that
// had started reports its result once, every call has its result, and every child's session has ended.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import type { ModelRequest } from '../../src/providers/types.ts';
import type { Agent } from '../../src/runtime/agent-handle.ts';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { continueMessage } from '../../src/runtime/jobs/durable-task.ts';
import { backgroundSpawns } from '../../src/session/mail-log.ts';
import type { LogEvent, SessionStore } from '../../src/session/types.ts';
import { backgroundAgentTools } from '../../src/tools/background-agents.ts';
import { settle } from '../support/controllable.ts';
import { assertCallsPaired, counterIds, echoTool, routedModel, stepIndex } from '../support/crash-kit.ts';
import { crashedAt, crashPoints, RecordingStore, type StoreWrite } from '../support/crash-store.ts';
import { call, expectMailPaired, startedIds, storedLogs } from '../support/mail-kit.ts';

/**
 * Answers by conversation and step, so a resumed agent gets the answers its log says are next; call ids
 * name the conversation and step (a resumed system's model counts its requests from 0 again).
 */
const model = () =>
  routedModel(
    {
      supervise: (request: ModelRequest) => {
        const step = stepIndex(request);
        if (step === 0)
          return calls('p0', [
            call('spawn_agent', { prompt: 'worker A' }),
            call('spawn_agent', { prompt: 'worker B' }),
          ]);
        const [a] = startedIds(request);
        if (step === 1 && a !== undefined)
          return calls('p1', [
            call('send_message', { to: a, text: 'Short form.' }),
            call('echo', { text: 'meanwhile' }),
          ]);
        return { text: 'All reported.' };
      },
      'worker A': (request: ModelRequest) => {
        const step = stepIndex(request);
        if (step === 0) return calls('a0', [call('wait_agents', { ids: ['parent'], timeout_ms: 60_000 })]);
        if (step === 1) return calls('a1', [call('send_message', { to: 'parent', text: 'A: noted.' })]);
        return { text: 'A result' };
      },
    },
    () => ({ text: 'B result' }),
  );

function calls(prefix: string, list: { name: string; input: Record<string, unknown> }[]) {
  return { toolCalls: list.map((entry, index) => ({ id: `${prefix}-${index}`, ...entry })) };
}

function systemOn(store: SessionStore, clock: SimulatedClock, idPrefix: string): AgentSystem {
  return createAgentSystem({
    model: model(),
    tools: [echoTool, ...backgroundAgentTools()],
    store,
    clock,
    ids: counterIds(idPrefix),
    projectInstructions: false,
    permissionMode: 'bypass',
  });
}

/**
 * Lets the tree work until it rests: only the root is left, idle. A run that waits on the clock (a child
 * waiting for a message that a crash lost) gets its next timer fired, and only then.
 */
async function driveToRest(system: AgentSystem, root: Agent, clock: SimulatedClock): Promise<void> {
  let before = '';
  for (let round = 0; round < 400; round++) {
    await settle(10);
    if (system.list().length === 1 && root.state === 'ready.idle') return;
    const now = JSON.stringify(system.list().map((agent) => [agent.id, agent.log().length]));
    if (now === before && !clock.runNext()) break;
    before = now;
  }
  throw new Error(
    `the tree did not come to rest: ${system.list().map((agent) => `${agent.id} ${agent.state}`)}`,
  );
}

function expectTreeSettled(
  logs: ReadonlyMap<string, readonly LogEvent[]>,
  started: ReadonlySet<string>,
): void {
  expectMailPaired(logs);
  for (const [id, events] of logs) assertCallsPaired(events, id);
  const root = logs.get('parent')!;
  for (const { childId } of backgroundSpawns(root)) {
    if (!started.has(childId)) continue;
    const results = root.filter((event) => event.type === 'inbox.queued' && event.data.from === childId);
    expect(
      results.filter((event) => event.data.kind === 'result'),
      `the result of ${childId}`,
    ).toHaveLength(1);
    expect(logs.get(childId)!.at(-1)?.type, `${childId} ended`).toBe('session.end');
  }
}

/** The crash points of one whole run of the tree (which itself settles as it must). */
async function recordedPoints(): Promise<StoreWrite[]> {
  const recording = new RecordingStore();
  const clock = new SimulatedClock(1_000);
  const original = systemOn(recording, clock, 'id');
  const parent = await original.createAgent({ id: 'parent' });
  await parent.run('supervise');
  await driveToRest(original, parent, clock);
  expectTreeSettled(await storedLogs(recording), await startedSessions(recording));
  await original.dispose();
  return crashPoints(recording.writes);
}

/** Resumes the parent from `store` in a new system and lets the tree come to rest, then disposes it. */
async function resumeToRest(store: SessionStore, idPrefix: string): Promise<void> {
  const clock = new SimulatedClock(1_000_000);
  const system = systemOn(store, clock, idPrefix);
  try {
    const root = await system.resumeAgent('parent');
    await driveToRest(system, root, clock);
    await root.dispose();
  } finally {
    await system.dispose();
  }
}

/** The sessions whose `session.start` is durable in `store`: the children a resume can continue. */
async function startedSessions(store: SessionStore): Promise<Set<string>> {
  const started = new Set<string>();
  for (const id of await store.list())
    if ((await store.load(id)).events[0]?.type === 'session.start') started.add(id);
  return started;
}

describe('background agents across crashes', () => {
  it('deliver every message exactly once, resumed from any write', { timeout: 120_000 }, async () => {
    const points = await recordedPoints();
    expect(points.length).toBeGreaterThan(80);

    // A crash at a random event; then, half the time, a second one at a random event of the resumed run.
    const crashes = fc.tuple(
      fc.integer({ min: 1, max: points.length }),
      fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
    );
    await fc.assert(
      fc.asyncProperty(crashes, async ([cut, again]) => {
        const first = points.slice(0, cut);
        const store = await crashedAt(first, cut);
        const started = await startedSessions(store);
        // Before the parent's session.start is durable there is nothing to resume.
        if (!started.has('parent')) return;
        if (again === undefined) {
          await resumeToRest(store, `r${cut}-`);
        } else {
          const resumed = new RecordingStore(store);
          await resumeToRest(resumed, `r${cut}-`);
          const more = crashPoints(resumed.writes);
          const second = first.length + Math.floor(again * more.length);
          const crashed = await crashedAt([...first, ...more], second);
          await resumeToRest(crashed, `s${cut}-`);
          expectTreeSettled(await storedLogs(crashed), started);
          return;
        }
        expectTreeSettled(await storedLogs(store), started);
      }),
      { numRuns: 80, seed: 31 },
    );
  });

  describe('the three cases by name', () => {
    /** The store as a crash right after the first point matching `where` leaves it. */
    async function crashAfter(where: (point: StoreWrite) => boolean): Promise<SessionStore> {
      const points = await recordedPoints();
      return crashedAt(points, points.findIndex(where) + 1);
    }
    const sent = (kind: string) => (point: StoreWrite) =>
      point.op === 'append' &&
      point.events[0]!.type === 'message.sent' &&
      (point.events[0]!.data.kind ?? 'message') === kind &&
      point.sessionId !== 'parent';

    it('a finished child whose result the parent never got: delivered once, the child is not run again', async () => {
      const store = await crashAfter(sent('result'));
      const child = (await storedLogs(store)).get('id5')!;
      expect(child.map((event) => event.type).slice(-2)).toEqual(['turn.end', 'message.sent']);
      await resumeToRest(store, 'r');
      const logs = await storedLogs(store);
      const after = logs.get('id5')!;
      // Resumed only to end: no new turn, one result.
      expect(after.filter((event) => event.type === 'turn.start')).toHaveLength(1);
      expect(after.filter((event) => event.type === 'message.sent')).toHaveLength(1);
      expect(after.at(-1)?.type).toBe('session.end');
      expectTreeSettled(logs, await startedSessions(store));
    });

    it('a message the parent sent that its child never got: delivered once on resume', async () => {
      const store = await crashAfter(
        (point) =>
          point.op === 'append' && point.events[0]!.type === 'message.sent' && point.sessionId === 'parent',
      );
      expect((await storedLogs(store)).get('id3')!.some((event) => event.data.from === 'parent')).toBe(false);
      await resumeToRest(store, 'r');
      const logs = await storedLogs(store);
      const fromParent = logs
        .get('id3')!
        .filter((event) => event.type === 'inbox.queued' && event.data.from === 'parent');
      expect(fromParent.map((event) => event.data.id)).toEqual(['id10']);
      expectTreeSettled(logs, await startedSessions(store));
    });

    it('a running child goes on from its log: its turn is closed and continued, its result reaches the parent', async () => {
      const store = await crashAfter(
        (point) =>
          point.op === 'append' && point.sessionId === 'id3' && point.events[0]!.type === 'tool.started',
      );
      await resumeToRest(store, 'r');
      const logs = await storedLogs(store);
      const child = logs.get('id3')!;
      const resumedAt = child.findIndex((event) => event.type === 'session.resumed');
      expect(
        child
          .slice(resumedAt, resumedAt + 4)
          .map((event) => [event.type, event.data.outcome ?? event.data.reason ?? null]),
      ).toEqual([
        ['session.resumed', null],
        ['tool.result', 'unknown'],
        ['step.end', null],
        ['turn.end', 'interrupted'],
      ]);
      expect(
        child.find((event) => event.type === 'inbox.queued' && event.data.message === continueMessage),
      ).toBeDefined();
      expectTreeSettled(logs, await startedSessions(store));
    });
  });
});
