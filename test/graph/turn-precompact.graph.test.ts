// Graph paths of the turn chart's `preCompacting` wait, driven through the real runtime: a turn that only
// compacts (`agent.compact()` after two answered turns) first tells the `preCompact` hooks (a holding hook
// the driver answers), then streams the summary. A cancel while the hook runs or while the summary
// streams ends the turn; every path ends with a dispose that checks the hook was aborted and the log.
import { describe, expect, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { type TurnEvent, type TurnInput, turnMachine } from '../../src/machines/turn.ts';
import { emptyUsage } from '../../src/providers/types.ts';
import { isCompactionRequest } from '../../src/session/compaction-request.ts';
import { settle } from '../support/controllable.ts';
import {
  actorAt,
  createHarness,
  currentRequest,
  disposeAndCheck,
  type Harness,
  requestEnded,
} from './support/driver.ts';
import { HoldingHooks } from './support/holding-hooks.ts';

type Snapshot = SnapshotFrom<typeof turnMachine>;
type Step = { event: TurnEvent; state: Snapshot };

const input: TurnInput = {
  agentKey: 'agent:a',
  turn: 3,
  followups: [],
  nextStep: [],
  limits: { maxSteps: 3, maxUnknownToolCalls: 2 },
  preStepEveryStep: false,
  step: {
    ...{ model: 'gate-model', toolNames: [], systemHash: 'h', maxParallelTools: 10, jitterKey: 'a' },
    hooks: { preCompact: true },
  },
  compaction: { enabled: true, threshold: 0.8 },
  contextUsage: { usedTokens: 0, contextWindow: 32_000 },
  compactionTried: false,
  compactRequest: {},
};

const compacted: TurnEvent = {
  type: 'step.done',
  output: {
    outcome: 'compacted',
    toolCalls: 0,
    unknownTools: 0,
    usage: emptyUsage,
    compaction: { replaces: [1, 2], summary: 'Summary.', tokensBefore: 0, trigger: 'manual' },
  },
};

/** What can happen where the runtime rests: the hook wait and the summary request. */
function events(snapshot: Snapshot): TurnEvent[] {
  // Tagged with the state it cancels, so a cancel in each wait is its own path (the chart ignores `from`).
  const cancel = { type: 'turn.cancel', cause: 'user', from: JSON.stringify(snapshot.value) } as TurnEvent;
  if (snapshot.matches('created')) return [{ type: 'turn.begin' }];
  if (snapshot.context.cancelCause) return snapshot.matches('ending') ? [{ type: 'log.flushed' }] : [];
  if (snapshot.matches('preCompacting'))
    return [
      { type: 'hook.preCompact', decisions: [{ point: 'preCompact', hook: 'hold', outcome: 'pass' }] },
      cancel,
    ];
  if (snapshot.matches('compacting')) return [compacted, cancel];
  if (snapshot.matches('ending')) return [{ type: 'log.flushed' }];
  return [];
}

function serializeState(snapshot: Snapshot, event: TurnEvent | undefined): string {
  const { cancelCause, reason } = snapshot.context;
  const from = event?.type === 'turn.cancel' ? (event as unknown as { from: string }).from : null;
  return JSON.stringify([snapshot.value, cancelCause ?? null, reason ?? null, from]);
}

const paths = getShortestPaths(turnMachine, {
  input,
  events,
  serializeState: (snapshot, event) => serializeState(snapshot as Snapshot, event as TurnEvent | undefined),
  limit: 1_000,
});

const label = (event: TurnEvent): string => {
  if (event.type === 'turn.cancel')
    return `cancel@${JSON.parse((event as unknown as { from: string }).from)}`;
  return event.type === 'step.done' ? 'summary' : event.type;
};

/** Two answered turns, so the compaction has an older one to summarise. */
async function twoTurns(harness: Harness): Promise<void> {
  for (const message of ['one', 'two']) {
    const run = harness.agent.run(message);
    (await currentRequest(harness)).answer(`Answer ${message}.`);
    requestEnded(harness);
    await run;
  }
}

async function stimulate(harness: Harness, hooks: HoldingHooks, event: TurnEvent): Promise<void> {
  switch (event.type) {
    case 'turn.begin':
      void harness.agent.compact().catch(() => undefined);
      break;
    case 'hook.preCompact':
      hooks.answer('preCompact:3', undefined);
      break;
    case 'step.done': {
      const request = await currentRequest(harness);
      expect(isCompactionRequest(request.request)).toBe(true);
      request.answer('Summary.');
      requestEnded(harness);
      break;
    }
    case 'turn.cancel':
      harness.agent.cancel();
      break;
    case 'log.flushed':
      // The memory store flushes at once: `ending` passes by itself.
      break;
    default:
      throw new Error(`not in the catalogue: ${event.type}`);
  }
  await settle();
}

describe('turn chart graph paths through preCompacting', () => {
  it('has the expected number of shortest paths', () => {
    // begin → preCompacting (answer, cancel) → compacting (summary, cancel) → ending → done.
    expect(paths).toHaveLength(8);
  });

  for (const path of paths) {
    const steps = path.steps.slice(1) as Step[];
    const name = steps.map((step) => label(step.event)).join(' > ') || '(created)';
    it(`${name} → ${JSON.stringify(path.state.value)}`, async () => {
      const hooks = new HoldingHooks();
      const harness = await createHarness({ hooks: hooks.hooks(['preCompact']) });
      await twoTurns(harness);
      for (const step of steps) {
        await stimulate(harness, hooks, step.event);
        const state = step.state;
        if (state.context.cancelCause) continue;
        if (state.matches('preCompacting') || state.matches('compacting'))
          expect(actorAt(harness, ['turn'])?.value).toEqual(state.value);
        if (state.matches('preCompacting')) expect(hooks.waiting('preCompact:3')).toBe(true);
      }
      const log = harness.agent.log();
      const answered = steps.some((step) => step.event.type === 'hook.preCompact');
      expect(log.filter((event) => event.type === 'hook.decided')).toHaveLength(answered ? 1 : 0);
      const summarised = steps.some((step) => step.event.type === 'step.done');
      expect(log.filter((event) => event.type === 'compaction')).toHaveLength(summarised ? 1 : 0);
      await disposeAndCheck(harness);
      expect(hooks.stillRunning()).toEqual([]);
    });
  }
});
