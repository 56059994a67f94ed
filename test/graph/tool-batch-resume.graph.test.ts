// Crash and resume from every state of the tool-batch chart, through the real runtime. The batch holds two
// calls that need approval between concurrency-safe ones, so it waits for a person at several positions
// (first question; second question after the first was allowed, or denied). At each state of the graph the
// test "crashes" — copies what the store holds, which is all a killed process leaves — resumes that copy
// in a new system and checks the resumed agent. Where the batch waited for a person, the resumed batch is
// in the same state: the same call waits for the same decision, the results logged before are kept, and
// answering finishes the turn. Anywhere else something was in flight (a model request or a tool whose
// outcome is lost), so the turn is repaired as `interrupted`, and the agent is idle.
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import { toolBatchMachine } from '../../src/machines/tool-batch.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { memoryStore } from '../../src/session/memory-store.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { GateProvider, settle } from '../support/controllable.ts';
import {
  type BatchSnapshot,
  describeBatchEvent,
  realChecks,
  serializeBatch,
  toolBatchEvents,
} from './catalogues/tool-batch.ts';
import { batchStimuli } from './support/batch-stimuli.ts';
import {
  actorAt,
  counterIds,
  createHarness,
  disposeAndCheck,
  expectResultsInModelOrder,
  type Harness,
  startRun,
} from './support/driver.ts';
import { HoldingTool } from './support/holding-tool.ts';
import { chartModel, pathName } from './support/model.ts';

const calls = [
  { id: 'c1', name: 'probe', input: { value: '1' } },
  { id: 'c2', name: 'edit', input: { value: '2' } },
  { id: 'c3', name: 'probe', input: { value: '3' } },
  { id: 'c4', name: 'edit', input: { value: '4' } },
];

function makeTools() {
  return {
    probe: new HoldingTool('probe', { safe: true }),
    edit: new HoldingTool('edit', { access: 'write' }),
  };
}
type Tools = ReturnType<typeof makeTools>;

const graph = chartModel(toolBatchMachine, {
  input: { agentKey: 'agent:a', turn: 1, maxParallel: 10 },
  events: toolBatchEvents({ calls, checks: realChecks(calls, Object.values(makeTools()), 'default') }),
  serializeState: serializeBatch,
});
// One path per state: each state is crashed in once.
const paths = graph.shortestPaths();

/** The states that wait for the outside world: a person's decision. */
const waitsForPerson = (state: BatchSnapshot) => state.matches('awaitingApproval');

/** A new system on a copy of what the store holds now: what a process killed at this moment leaves. */
async function crashAndResume(
  original: Harness,
): Promise<{ harness: Harness; tools: Tools; flushed: LogEvent[] }> {
  const flushed = structuredClone((await original.store.load(original.agent.id)).events);
  const store = memoryStore();
  await store.create(original.agent.id);
  await store.append(original.agent.id, flushed);
  const tools = makeTools();
  const model = new GateProvider();
  const clock = new SimulatedClock(50_000);
  const system = createAgentSystem({
    model,
    tools: Object.values(tools).map((held) => held.tool),
    store,
    clock,
    ids: counterIds('r'),
    projectInstructions: false,
    permissionMode: 'default',
    approve: 'manual',
  });
  const agent = await system.resumeAgent(original.agent.id);
  await settle();
  const byName = new Map(Object.values(tools).map((held) => [held.name, held]));
  const harness = { model, clock, store, system, agent, tools: byName, run: undefined, nextRequest: 0 };
  return { harness, tools, flushed };
}

/** Answers whatever the resumed agent waits for (allow, finish tools, answer the model) until the turn ends. */
async function finishTurn(harness: Harness, tools: Tools): Promise<void> {
  const ended = harness.agent.whenTurnEnds(1);
  let over = false;
  void ended.then(() => {
    over = true;
  });
  for (let round = 0; round < 20 && !over; round++) {
    const [question] = harness.agent.pendingApprovals();
    const running = [
      ...tools.probe.running.map((id) => [tools.probe, id] as const),
      ...tools.edit.running.map((id) => [tools.edit, id] as const),
    ];
    const request = harness.model.requests.find((pending) => !pending.finished);
    if (question) harness.agent.approve(question.callId);
    else if (running[0]) running[0][0].finish(running[0][1]);
    else if (request) request.answer('Done.');
    await settle();
  }
  expect(await ended).toMatchObject({ reason: 'completed', text: 'Done.' });
}

describe('tool-batch graph: crash in every state, resume, and compare', () => {
  it('has one path per state, and the expected states wait for a person', () => {
    // 29 states of one batch plus the idle actor before `batch.begin`; 6 wait for a person: the first
    // question, and the second after the first was allowed or denied, each being made durable and asked.
    expect(paths).toHaveLength(30);
    expect(paths.filter((path) => waitsForPerson(path.state))).toHaveLength(6);
  });

  it.each(paths.map((path) => [pathName(path, describeBatchEvent, { join: ' → ', empty: '(start)' }), path]))(
    '%s',
    async (_name, path) => {
      const originalTools = makeTools();
      const original = await createHarness({
        tools: Object.values(originalTools),
        permissionMode: 'default',
        approve: 'manual',
      });
      await startRun(original);
      const stimuli = batchStimuli(original, { calls, tools: Object.values(originalTools) });
      await graph.run(path, { events: stimuli.events });
      const state = path.state;
      const before = actorAt(original, ['turn', 'step', 'batch']);
      const askedBefore = original.agent.pendingApprovals();
      const { harness, tools, flushed } = await crashAndResume(original);
      const resumedLog = harness.agent.log();
      expect(resumedLog.slice(0, flushed.length)).toEqual(flushed);
      if (waitsForPerson(state)) {
        // The same position: the batch asks again, the same call waits, earlier results are kept.
        const after = actorAt(harness, ['turn', 'step', 'batch']);
        expect(before?.value).toEqual({ awaitingApproval: 'asking' });
        expect(after?.value).toEqual(before?.value);
        expect(actorAt(harness, ['turn'])?.value).toEqual(actorAt(original, ['turn'])?.value);
        expect(actorAt(harness, ['turn', 'step'])?.value).toEqual(actorAt(original, ['turn', 'step'])?.value);
        expect(after?.children.map((child) => child.id).sort()).toEqual(
          before?.children.map((child) => child.id).sort(),
        );
        expect(harness.agent.pendingApprovals()).toEqual(askedBefore);
        const results = (log: readonly LogEvent[]) =>
          log
            .filter((event) => event.type === 'tool.result')
            .map((event) => [event.data.callId, event.data.outcome]);
        expect(results(resumedLog)).toEqual(results(flushed));
        // A turn left waiting is continued, not repaired: the resumed process's config, then the question.
        expect(resumedLog.slice(flushed.length).map((event) => [event.type, event.data.callId])).toEqual([
          ['session.resumed', undefined],
          ['approval.asked', askedBefore[0]?.callId],
        ]);
        await finishTurn(harness, tools);
        expect(
          tools.probe.started
            .concat(tools.edit.started)
            .some((id) => originalTools.probe.started.includes(id)),
        ).toBe(false);
      } else {
        // Something was in flight: the turn is repaired (calls without a result get one) and the agent is idle.
        expect(harness.agent.snapshot().value).toEqual({ ready: 'idle' });
        const ends = resumedLog
          .filter((event) => event.type === 'turn.end')
          .map((event) => event.data.reason);
        const openBefore =
          flushed.some((event) => event.type === 'turn.start') &&
          !flushed.some((event) => event.type === 'turn.end');
        expect(ends).toEqual(
          openBefore
            ? ['interrupted']
            : flushed.filter((e) => e.type === 'turn.end').map((e) => e.data.reason),
        );
        expect(tools.probe.started.concat(tools.edit.started)).toEqual([]);
      }
      expectResultsInModelOrder(harness.agent.log(), true);
      await disposeAndCheck(harness);
      await disposeAndCheck(original);
    },
  );
});
