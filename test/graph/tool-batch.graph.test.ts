// Graph paths of the tool-batch chart, each driven through the real runtime. The batch holds six calls
// in model order: two concurrency-safe calls, a barrier, a call needing approval, an unknown tool and a
// call with invalid arguments. The `batch.checked` payload is what the real check actor computes.
import { describe, expect, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { getSimplePaths } from 'xstate/graph';
import { checkCall } from '../../src/actors/tool-check.ts';
import { type ToolBatchEvent, type ToolBatchInput, toolBatchMachine } from '../../src/machines/tool-batch.ts';
import { AgentPermissionGate } from '../../src/permissions/gate.ts';
import { settle } from '../support/controllable.ts';
import {
  actorAt,
  createHarness,
  currentRequest,
  disposeAndCheck,
  expectResultsInModelOrder,
  type Harness,
  requestEnded,
  startRun,
} from './support/driver.ts';
import { HoldingTool } from './support/holding-tool.ts';

type BatchSnapshot = SnapshotFrom<typeof toolBatchMachine>;

const calls = [
  { id: 'c1', name: 'probe', input: { value: '1' } },
  { id: 'c2', name: 'probe', input: { value: '2' } },
  { id: 'c3', name: 'poke', input: { value: '3' } },
  { id: 'c4', name: 'edit', input: { value: '4' } },
  { id: 'c5', name: 'nope', input: {} },
  { id: 'c6', name: 'probe', input: { value: 42 } },
];

function makeTools() {
  return {
    probe: new HoldingTool('probe', { safe: true }),
    poke: new HoldingTool('poke', { safe: false }),
    edit: new HoldingTool('edit', { safe: true, access: 'write' }),
  };
}

// The same decisions the runtime makes: mode `default` asks before writes, and a manual approver exists.
const gate = new AgentPermissionGate({
  mode: 'default',
  allow: [],
  deny: [],
  cwd: process.cwd(),
  canAsk: true,
});
const toolMap = new Map(Object.values(makeTools()).map((held) => [held.name, held.tool]));
const checks = calls.map((call) => checkCall({ tools: toolMap, permissions: gate }, call));

const input: ToolBatchInput = { agentKey: 'agent:a', turn: 1, maxParallel: 10 };

/** The catalogue: what can happen in each state, with sample payloads. */
function events(snapshot: BatchSnapshot): ToolBatchEvent[] {
  const { calls: tracked } = snapshot.context;
  const running = tracked.filter((call) => call.phase === 'running');
  // One batch per path: begun once, over when the actor is back in idle.
  if (snapshot.matches('idle'))
    return snapshot.context.step === 0 ? [{ type: 'batch.begin', step: 1, calls }] : [];
  // The real check answers in the macrostep that starts the batch, so nothing else can arrive in
  // `checking`; a cancel there is covered by the pure unit test (test/machines/tool-batch.test.ts).
  if (snapshot.matches('checking')) return [{ type: 'batch.checked', checks }];
  if (snapshot.matches('cancelling')) {
    return running.map((call) => ({
      type: 'tool.settled',
      callId: call.callId,
      outcome: 'aborted',
      content: '',
    }));
  }
  // The question is made durable before anyone is asked: nothing but the flush happens meanwhile (an answer
  // that beats the flush is covered by the pure unit test).
  if (snapshot.matches({ awaitingApproval: 'persisting' })) return [{ type: 'log.flushed' }];
  // A call that needs approval is a barrier: in `awaitingApproval` nothing else runs.
  if (!snapshot.matches('running') && !snapshot.matches('awaitingApproval')) return [];
  return [
    ...running.map(
      (call): ToolBatchEvent => ({ type: 'tool.settled', callId: call.callId, outcome: 'ok', content: '' }),
    ),
    ...tracked
      .filter((call) => call.phase === 'awaitingApproval')
      .flatMap((call): ToolBatchEvent[] => [
        { type: 'tool.approve', callId: call.callId },
        { type: 'tool.deny', callId: call.callId, reason: 'not now' },
      ]),
    { type: 'batch.cancel' },
  ];
}

/** Bounded key: state value plus each call's phase, outcome and whether it is committed. */
function serializeState(snapshot: BatchSnapshot): string {
  const calls = snapshot.context.calls.map(
    (call) => `${call.callId}:${call.phase}:${call.outcome ?? ''}:${call.committed ? 'committed' : ''}`,
  );
  return JSON.stringify([snapshot.value, calls]);
}

const paths = getSimplePaths(toolBatchMachine, {
  input,
  events,
  serializeState: serializeState as never,
  limit: 10_000,
});

function describeEvent(event: ToolBatchEvent): string {
  return 'callId' in event ? `${event.type}(${event.callId})` : event.type;
}

const pathName = (steps: { event: ToolBatchEvent }[]) =>
  steps.map((step) => describeEvent(step.event)).join(' → ') || '(start)';

type Tools = ReturnType<typeof makeTools>;

/** Translates one abstract event into the real stimulus. */
async function drive(harness: Harness, tools: Tools, event: ToolBatchEvent): Promise<void> {
  const toolOf = (callId: string) => {
    const name = calls.find((call) => call.id === callId)!.name as keyof Tools;
    return tools[name];
  };
  switch (event.type) {
    case 'batch.begin':
      // The model's answer brings both `batch.begin` and, in the same macrostep, `batch.checked`.
      break;
    case 'log.flushed':
      // The real flush of the question happens on its own; the stimulus that led to the wait let it finish.
      break;
    case 'batch.checked':
      (await currentRequest(harness)).answer('', calls);
      requestEnded(harness);
      break;
    case 'tool.settled':
      toolOf(event.callId).finish(event.callId);
      break;
    case 'tool.approve':
      harness.agent.approve(event.callId);
      break;
    case 'tool.deny':
      harness.agent.deny(event.callId, event.reason);
      break;
    case 'batch.cancel':
      harness.agent.cancel();
      break;
  }
  await settle();
}

/** The batch has committed every result and reported (its actor waits in idle for the next one). */
const finished = (snapshot: BatchSnapshot) => snapshot.matches('idle') && snapshot.context.step > 0;

/** Checks the real actor and log against one state of the path. */
async function expectMatches(
  harness: Harness,
  tools: Tools,
  state: BatchSnapshot,
  everRunning: Set<string>,
  canceled: boolean,
): Promise<void> {
  const batch = actorAt(harness, ['turn', 'step', 'batch']);
  // The driver applies `batch.begin` and `batch.checked` with one stimulus, the model's answer, which
  // it gives on `batch.checked`: until then the real batch still waits in idle with nothing logged.
  if (state.matches('checking')) {
    expect(batch?.value).toBe('idle');
    expect(harness.agent.log().filter((event) => event.type === 'tool.call')).toEqual([]);
    return;
  }
  const log = harness.agent.log();
  expectResultsInModelOrder(log);
  const committed = state.context.calls.filter((call) => call.committed);
  const results = log.filter((event) => event.type === 'tool.result');
  expect(results.map((event) => [event.data.callId, event.data.outcome])).toEqual(
    committed.map((call) => [call.callId, call.outcome]),
  );
  const started = log.filter((event) => event.type === 'tool.started').map((event) => event.data.callId);
  expect([...started].sort()).toEqual([...everRunning].sort());
  const toolStarts = [...tools.probe.started, ...tools.poke.started, ...tools.edit.started];
  expect(toolStarts.sort()).toEqual([...everRunning].sort());
  // A finished batch waits in idle while the turn goes on; a cancel ends the turn and with it the batch.
  if (finished(state) && canceled) expect(batch).toBeUndefined();
  // The real flush is done by the time the driver looks: the real batch is already asking.
  else if (state.matches({ awaitingApproval: 'persisting' }))
    expect(batch?.value).toEqual({ awaitingApproval: 'asking' });
  else expect(batch?.value).toEqual(state.value);
  // Whoever is asked, everything said and asked before is durable.
  if (state.matches({ awaitingApproval: 'asking' })) {
    expect((await harness.store.load(harness.agent.id)).events).toEqual(harness.agent.log());
  }
}

describe('tool-batch graph paths', () => {
  it('the check payload is what the real checker decides', () => {
    expect(
      checks.map((check) => [check.callId, check.verdict, check.safe, check.unknownTool ?? false]),
    ).toEqual([
      ['c1', 'run', true, false],
      ['c2', 'run', true, false],
      ['c3', 'run', false, false],
      ['c4', 'ask', false, false],
      ['c5', 'reject', false, true],
      ['c6', 'reject', false, false],
    ]);
  });

  it('has the expected number of simple paths', () => {
    // 35 states of one batch (two of them with the question being made durable), plus the idle actor
    // before `batch.begin`.
    expect(paths).toHaveLength(36);
  });

  it.each(paths.map((path) => [pathName(path.steps.slice(1) as { event: ToolBatchEvent }[]), path]))(
    '%s',
    async (_name, path) => {
      const tools = makeTools();
      const harness = await createHarness({
        tools: Object.values(tools),
        permissionMode: 'default',
        approve: 'manual',
      });
      await startRun(harness);
      const everRunning = new Set<string>();
      let canceled = false;
      for (const step of path.steps.slice(1)) {
        const event = step.event as ToolBatchEvent;
        canceled ||= event.type === 'batch.cancel';
        await drive(harness, tools, event);
        const state = step.state as BatchSnapshot;
        for (const call of state.context.calls) if (call.phase === 'running') everRunning.add(call.callId);
        await expectMatches(harness, tools, state, everRunning, canceled);
      }
      const final = path.state as BatchSnapshot;
      if (finished(final)) {
        if (!canceled) (await currentRequest(harness)).answer('Done.');
        const result = await harness.run!;
        expect(result.reason).toBe(canceled ? 'canceled' : 'completed');
      }
      await disposeAndCheck(harness);
      // Everything that began was either finished by the path or aborted by the cancel or dispose.
      const aborted = [...tools.probe.aborted, ...tools.poke.aborted, ...tools.edit.aborted].sort();
      const finishedByPath = path.steps
        .map((step) => step.event as ToolBatchEvent)
        .filter((event) => event.type === 'tool.settled' && event.outcome === 'ok')
        .map((event) => (event as { callId: string }).callId);
      expect(aborted).toEqual([...everRunning].filter((id) => !finishedByPath.includes(id)).sort());
    },
  );
});
