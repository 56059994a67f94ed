// Graph paths of the tool-batch chart with `preTool` and `postTool` hooks, each driven through the real
// runtime with in-process hooks the driver answers. Two calls: a concurrency-safe one and a barrier. The
// hooks may pass or deny the barrier; every path ends with a dispose, so paths that stop in a hook wait
// check that the hook was aborted and that every call still has its one result.
import { describe, expect, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { getSimplePaths } from 'xstate/graph';
import { checkCall } from '../../src/actors/tool-check.ts';
import type { PreToolVerdict } from '../../src/machines/hook-events.ts';
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
import { HoldingHooks } from './support/holding-hooks.ts';
import { HoldingTool } from './support/holding-tool.ts';

type BatchSnapshot = SnapshotFrom<typeof toolBatchMachine>;

const calls = [
  { id: 'c1', name: 'probe', input: { value: '1' } },
  { id: 'c2', name: 'poke', input: { value: '2' } },
];

function makeTools() {
  return { probe: new HoldingTool('probe', { safe: true }), poke: new HoldingTool('poke', { safe: false }) };
}

const gate = new AgentPermissionGate({
  mode: 'bypass',
  allow: [],
  deny: [],
  cwd: process.cwd(),
  canAsk: false,
});
const toolMap = new Map(Object.values(makeTools()).map((held) => [held.name, held.tool]));
const checks = calls.map((call) => checkCall({ tools: toolMap, permissions: gate }, call));

const input: ToolBatchInput = {
  agentKey: 'agent:a',
  turn: 1,
  maxParallel: 10,
  hooks: { preTool: true, postTool: true },
};

const decision = (callId: string, outcome: 'pass' | 'deny') => ({
  point: 'preTool' as const,
  hook: 'hold',
  outcome,
  callId,
});
const passAll: PreToolVerdict[] = calls.map((call) => ({
  callId: call.id,
  decisions: [decision(call.id, 'pass')],
}));
const denyBarrier: PreToolVerdict[] = [
  passAll[0]!,
  { callId: 'c2', decisions: [decision('c2', 'deny')], verdict: 'reject', outcome: 'denied', content: 'no' },
];

function events(snapshot: BatchSnapshot): ToolBatchEvent[] {
  const tracked = snapshot.context.calls;
  const running = tracked.filter((call) => call.phase === 'running');
  if (snapshot.matches('idle'))
    return snapshot.context.step === 0 ? [{ type: 'batch.begin', step: 1, calls }] : [];
  if (snapshot.matches('checking')) return [{ type: 'batch.checked', checks }];
  if (snapshot.matches('hooking'))
    return [
      { type: 'hook.preTool', verdicts: passAll },
      { type: 'hook.preTool', verdicts: denyBarrier },
      { type: 'batch.cancel' },
    ];
  if (snapshot.matches('cancelling'))
    return running.map((call) => ({
      type: 'tool.settled',
      callId: call.callId,
      outcome: 'aborted',
      content: '',
    }));
  if (!snapshot.matches('running')) return [];
  return [
    ...running.map(
      (call): ToolBatchEvent => ({ type: 'tool.settled', callId: call.callId, outcome: 'ok', content: '' }),
    ),
    ...tracked
      .filter((call) => call.phase === 'postHooking')
      .map(
        (call): ToolBatchEvent => ({
          type: 'hook.postTool',
          callId: call.callId,
          decisions: [],
          content: 'post',
        }),
      ),
    { type: 'batch.cancel' },
  ];
}

function serializeState(snapshot: BatchSnapshot): string {
  const tracked = snapshot.context.calls.map(
    (call) => `${call.callId}:${call.phase}:${call.outcome ?? ''}:${call.committed ? 'committed' : ''}`,
  );
  return JSON.stringify([snapshot.value, tracked]);
}

const paths = getSimplePaths(toolBatchMachine, {
  input,
  events,
  serializeState: serializeState as never,
  limit: 10_000,
});

function describeEvent(event: ToolBatchEvent): string {
  if (event.type === 'hook.preTool')
    return event.verdicts.some((v) => v.verdict === 'reject')
      ? 'hook.preTool(deny c2)'
      : 'hook.preTool(pass)';
  return 'callId' in event ? `${event.type}(${event.callId})` : event.type;
}

const pathName = (steps: { event: ToolBatchEvent }[]) =>
  steps.map((step) => describeEvent(step.event)).join(' → ') || '(start)';

type Tools = ReturnType<typeof makeTools>;

async function drive(
  harness: Harness,
  tools: Tools,
  hooks: HoldingHooks,
  event: ToolBatchEvent,
): Promise<void> {
  const toolOf = (callId: string) => tools[calls.find((call) => call.id === callId)!.name as keyof Tools];
  switch (event.type) {
    case 'batch.begin':
      break;
    case 'batch.checked':
      (await currentRequest(harness)).answer('', calls);
      requestEnded(harness);
      break;
    case 'hook.preTool':
      // The real hooks are asked one call at a time, in model order.
      for (const verdict of event.verdicts) {
        await settle();
        const deny = verdict.verdict === 'reject';
        hooks.answer(`preTool:${verdict.callId}`, deny ? { decision: 'deny', reason: 'no' } : undefined);
      }
      break;
    case 'hook.postTool':
      hooks.answer(`postTool:${event.callId}`, { content: event.content });
      break;
    case 'tool.settled':
      toolOf(event.callId).finish(event.callId);
      break;
    case 'batch.cancel':
      harness.agent.cancel();
      break;
    default:
      throw new Error(`not in the catalogue: ${event.type}`);
  }
  await settle();
}

const finished = (snapshot: BatchSnapshot) => snapshot.matches('idle') && snapshot.context.step > 0;

function expectMatches(harness: Harness, hooks: HoldingHooks, state: BatchSnapshot, canceled: boolean): void {
  const batch = actorAt(harness, ['turn', 'step', 'batch']);
  if (state.matches('checking')) {
    expect(batch?.value).toBe('idle');
    return;
  }
  const log = harness.agent.log();
  expectResultsInModelOrder(log);
  const committed = state.context.calls.filter((call) => call.committed);
  const results = log.filter((event) => event.type === 'tool.result');
  expect(results.map((event) => [event.data.callId, event.data.outcome])).toEqual(
    committed.map((call) => [call.callId, call.outcome]),
  );
  if (finished(state) && canceled) expect(batch).toBeUndefined();
  else expect(batch?.value).toEqual(state.value);
  // Each call waiting for its postTool hook has one running; a hooking batch waits for a preTool hook.
  for (const call of state.context.calls)
    if (call.phase === 'postHooking') expect(hooks.waiting(`postTool:${call.callId}`)).toBe(true);
  if (state.matches('hooking')) expect(hooks.waiting('preTool:c1') || hooks.waiting('preTool:c2')).toBe(true);
  // A result a postTool hook replaced is what the log holds.
  for (const event of results)
    if (state.context.calls.find((call) => call.callId === event.data.callId)?.content === 'post')
      expect(event.data.content).toBe('post');
}

describe('tool-batch graph paths with hooks', () => {
  it('has the expected number of simple paths', () => {
    // 20 states of one batch (hooking, running with a call in postHooking, cancelling from each), plus the
    // idle actor before `batch.begin`.
    expect(paths).toHaveLength(21);
  });

  it.each(paths.map((path) => [pathName(path.steps.slice(1) as { event: ToolBatchEvent }[]), path]))(
    '%s',
    async (_name, path) => {
      const tools = makeTools();
      const hooks = new HoldingHooks();
      const harness = await createHarness({
        tools: Object.values(tools),
        hooks: hooks.hooks(['preTool', 'postTool']),
      });
      await startRun(harness);
      let canceled = false;
      for (const step of path.steps.slice(1)) {
        const event = step.event as ToolBatchEvent;
        canceled ||= event.type === 'batch.cancel';
        await drive(harness, tools, hooks, event);
        expectMatches(harness, hooks, step.state as BatchSnapshot, canceled);
      }
      const final = path.state as BatchSnapshot;
      if (finished(final)) {
        if (!canceled) (await currentRequest(harness)).answer('Done.');
        expect((await harness.run!).reason).toBe(canceled ? 'canceled' : 'completed');
      }
      await disposeAndCheck(harness);
      // Whatever hook was still waiting was aborted by the cancel or the dispose.
      expect(hooks.stillRunning()).toEqual([]);
      for (const key of hooks.aborted) expect(hooks.started).toContain(key);
    },
  );
});
