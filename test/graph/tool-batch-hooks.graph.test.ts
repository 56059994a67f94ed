// Graph paths of the tool-batch chart with `preTool` and `postTool` hooks, each driven through the real
// runtime with in-process hooks the driver answers. Two calls: a concurrency-safe one and a barrier. The
// hooks may pass or deny the barrier; every path ends with a dispose, so paths that stop in a hook wait
// check that the hook was aborted and that every call still has its one result.
import { describe, expect, it } from 'vitest';
import { toolBatchMachine } from '../../src/machines/tool-batch.ts';
import {
  type BatchSnapshot,
  describeBatchEvent,
  preToolVerdicts,
  realChecks,
  serializeBatch,
  toolBatchEvents,
} from './catalogues/tool-batch.ts';
import { batchStimuli, expectBatchAt, expectNotBegun, expectRunEnds } from './support/batch-stimuli.ts';
import { createHarness, disposeAndCheck, startRun } from './support/driver.ts';
import { HoldingHooks } from './support/holding-hooks.ts';
import { HoldingTool } from './support/holding-tool.ts';
import { chartModel, pathName } from './support/model.ts';

const calls = [
  { id: 'c1', name: 'probe', input: { value: '1' } },
  { id: 'c2', name: 'poke', input: { value: '2' } },
];

const makeTools = () => [new HoldingTool('probe', { safe: true }), new HoldingTool('poke', { safe: false })];

const graph = chartModel(toolBatchMachine, {
  input: { agentKey: 'agent:a', turn: 1, maxParallel: 10, hooks: { preTool: true, postTool: true } },
  events: toolBatchEvents({
    calls,
    checks: realChecks(calls, makeTools(), 'bypass'),
    preTool: preToolVerdicts(calls, 'c2'),
  }),
  serializeState: serializeBatch,
});
const paths = graph.simplePaths();

/** Each call waiting for its postTool hook has one running; a result the hook replaced is what is logged. */
function expectHooksAt(hooks: HoldingHooks, state: BatchSnapshot, log: { data: Record<string, unknown> }[]) {
  for (const call of state.context.calls)
    if (call.phase === 'postHooking') expect(hooks.waiting(`postTool:${call.callId}`)).toBe(true);
  for (const event of log)
    if (state.context.calls.find((call) => call.callId === event.data.callId)?.content === 'post')
      expect(event.data.content).toBe('post');
}

describe('tool-batch graph paths with hooks', () => {
  it('has the expected number of simple paths', () => {
    // 20 states of one batch (hooking, running with a call in postHooking, cancelling from each), plus the
    // idle actor before `batch.begin`.
    expect(paths).toHaveLength(21);
  });

  it.each(paths.map((path) => [pathName(path, describeBatchEvent, { join: ' → ', empty: '(start)' }), path]))(
    '%s',
    async (_name, path) => {
      const tools = makeTools();
      const hooks = new HoldingHooks();
      const harness = await createHarness({ tools, hooks: hooks.hooks(['preTool', 'postTool']) });
      await startRun(harness);
      const stimuli = batchStimuli(harness, { calls, tools, hooks });
      const results = () => harness.agent.log().filter((event) => event.type === 'tool.result');
      await graph.run(path, {
        events: stimuli.events,
        states: {
          checking: () => expectNotBegun(harness),
          // A hooking batch waits for a preTool hook.
          hooking: (state) => {
            expectBatchAt(harness, state, stimuli.canceled());
            expect(hooks.waiting('preTool:c1') || hooks.waiting('preTool:c2')).toBe(true);
          },
          '*': (state) => {
            expectBatchAt(harness, state, stimuli.canceled());
            expectHooksAt(hooks, state, results());
          },
        },
      });
      await expectRunEnds(harness, path.state, stimuli.canceled());
      await disposeAndCheck(harness);
      // Whatever hook was still waiting was aborted by the cancel or the dispose.
      expect(hooks.stillRunning()).toEqual([]);
      for (const key of hooks.aborted) expect(hooks.started).toContain(key);
    },
  );
});
