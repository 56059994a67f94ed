// Graph paths of the tool-batch chart, each driven through the real runtime. The batch holds six calls
// in model order: two concurrency-safe calls, a barrier, a call needing approval, an unknown tool and a
// call with invalid arguments. The catalogue is the chart's own (catalogues/tool-batch.ts).
import { describe, expect, it } from 'vitest';
import { type ToolBatchEvent, toolBatchMachine } from '../../src/machines/tool-batch.ts';
import {
  type BatchSnapshot,
  describeBatchEvent,
  realChecks,
  serializeBatch,
  toolBatchEvents,
} from './catalogues/tool-batch.ts';
import { batchStimuli, expectBatchAt, expectNotBegun, expectRunEnds } from './support/batch-stimuli.ts';
import { createHarness, disposeAndCheck, type Harness, startRun } from './support/driver.ts';
import { HoldingTool } from './support/holding-tool.ts';
import { chartModel, eventsOf, pathName } from './support/model.ts';

const calls = [
  { id: 'c1', name: 'probe', input: { value: '1' } },
  { id: 'c2', name: 'probe', input: { value: '2' } },
  { id: 'c3', name: 'poke', input: { value: '3' } },
  { id: 'c4', name: 'edit', input: { value: '4' } },
  { id: 'c5', name: 'nope', input: {} },
  { id: 'c6', name: 'probe', input: { value: 42 } },
];

const makeTools = () => [
  new HoldingTool('probe', { safe: true }),
  new HoldingTool('poke', { safe: false }),
  new HoldingTool('edit', { safe: true, access: 'write' }),
];

// The same decisions the runtime makes: mode `default` asks before writes, and a manual approver exists.
const checks = realChecks(calls, makeTools(), 'default');

const graph = chartModel(toolBatchMachine, {
  input: { agentKey: 'agent:a', turn: 1, maxParallel: 10 },
  events: toolBatchEvents({ calls, checks }),
  serializeState: serializeBatch,
});
const paths = graph.simplePaths();

/** Every call that ran, by the real log and by the tools, is every call the path ever had running. */
async function expectRan(
  harness: Harness,
  tools: HoldingTool[],
  state: BatchSnapshot,
  everRunning: Set<string>,
) {
  const log = harness.agent.log();
  const started = log.filter((event) => event.type === 'tool.started').map((event) => event.data.callId);
  expect([...started].sort()).toEqual([...everRunning].sort());
  expect(tools.flatMap((tool) => tool.started).sort()).toEqual([...everRunning].sort());
  // Whoever is asked, everything said and asked before is durable.
  if (state.matches({ awaitingApproval: 'asking' }))
    expect((await harness.store.load(harness.agent.id)).events).toEqual(log);
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

  it.each(paths.map((path) => [pathName(path, describeBatchEvent, { join: ' → ', empty: '(start)' }), path]))(
    '%s',
    async (_name, path) => {
      const tools = makeTools();
      const harness = await createHarness({ tools, permissionMode: 'default', approve: 'manual' });
      await startRun(harness);
      const everRunning = new Set<string>();
      const stimuli = batchStimuli(harness, { calls, tools });
      await graph.run(path, {
        events: stimuli.events,
        states: {
          checking: () => expectNotBegun(harness),
          '*': async (state) => {
            for (const call of state.context.calls)
              if (call.phase === 'running') everRunning.add(call.callId);
            expectBatchAt(harness, state, stimuli.canceled());
            await expectRan(harness, tools, state, everRunning);
          },
        },
      });
      await expectRunEnds(harness, path.state, stimuli.canceled());
      await disposeAndCheck(harness);
      // Everything that began was either finished by the path or aborted by the cancel or dispose.
      const finishedByPath = eventsOf(path)
        .filter((event) => event.type === 'tool.settled' && event.outcome === 'ok')
        .map((event) => (event as Extract<ToolBatchEvent, { type: 'tool.settled' }>).callId);
      expect(tools.flatMap((tool) => tool.aborted).sort()).toEqual(
        [...everRunning].filter((id) => !finishedByPath.includes(id)).sort(),
      );
    },
  );
});
