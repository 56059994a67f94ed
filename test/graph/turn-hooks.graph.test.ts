// Graph paths of the turn chart's hook waits, each driven through the real runtime with in-process hooks
// the driver answers: `screening` (the `userMessage` hooks read the follow-up) and `stopping` (the `stop`
// hooks may refuse the end of the turn). Every path ends with a dispose, so paths that stop in a hook wait
// check that the hook was aborted and the log ends cleanly.
import { describe, expect, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { maxStopRefusals } from '../../src/machines/hook-events.ts';
import { type TurnEvent, type TurnInput, turnMachine } from '../../src/machines/turn.ts';
import { emptyUsage } from '../../src/providers/types.ts';
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

// Room for every refusal the bound allows, so the bound (not the step limit) ends a refusing turn.
const limits = { maxSteps: maxStopRefusals + 2, maxUnknownToolCalls: 2 };

const input: TurnInput = {
  agentKey: 'agent:a',
  turn: 1,
  followups: [{ id: 'id2', channel: 'followup', message: 'go' }],
  nextStep: [],
  limits,
  preStepEveryStep: false,
  step: {
    model: 'gate-model',
    toolNames: [],
    systemHash: 'h',
    maxParallelTools: 10,
    jitterKey: 'a',
    hooks: { userMessage: true, stop: true },
  },
};

const final: TurnEvent = {
  type: 'step.done',
  output: { outcome: 'final', toolCalls: 0, unknownTools: 0, usage: emptyUsage },
};
const decided = (outcome: 'pass' | 'block') => ({ point: 'stop' as const, hook: 'hold', outcome });

/** What can happen where the runtime rests: the two hook waits and a step waiting for the model. */
function events(snapshot: Snapshot): TurnEvent[] {
  if (snapshot.matches('created')) return [{ type: 'turn.begin' }];
  if (snapshot.context.cancelCause) return snapshot.matches('ending') ? [{ type: 'log.flushed' }] : [];
  if (snapshot.matches('screening'))
    return [
      { type: 'hook.userMessage', messages: [{ id: 'id2', decisions: [], message: 'go' }] },
      {
        type: 'hook.userMessage',
        messages: [{ id: 'id2', decisions: [], message: 'go', blocked: { reason: 'no' } }],
      },
      { type: 'turn.cancel', cause: 'user' },
    ];
  if (snapshot.matches('stepping')) return [final, { type: 'turn.cancel', cause: 'user' }];
  if (snapshot.matches('stopping'))
    return [
      { type: 'hook.stop', decisions: [decided('block')], refusal: 'more' },
      { type: 'hook.stop', decisions: [decided('pass')] },
      { type: 'turn.cancel', cause: 'user' },
    ];
  if (snapshot.matches('ending')) return [{ type: 'log.flushed' }];
  return [];
}

function serializeState(snapshot: Snapshot): string {
  const { stepCount, stopRefusals, cancelCause, reason } = snapshot.context;
  return JSON.stringify([snapshot.value, stepCount, stopRefusals, cancelCause ?? null, reason ?? null]);
}

const paths = getShortestPaths(turnMachine, {
  input,
  events,
  serializeState: (snapshot) => serializeState(snapshot as Snapshot),
  limit: 5_000,
});

const label = (event: TurnEvent): string => {
  if (event.type === 'hook.userMessage')
    return event.messages[0]?.blocked ? 'userMessage:block' : 'userMessage:pass';
  if (event.type === 'hook.stop') return event.refusal ? 'stop:refuse' : 'stop:allow';
  return event.type === 'step.done' ? 'step:final' : event.type;
};

async function stimulate(harness: Harness, hooks: HoldingHooks, event: TurnEvent): Promise<void> {
  switch (event.type) {
    case 'turn.begin':
      harness.run = harness.agent.run('go');
      harness.run.catch(() => undefined);
      break;
    case 'hook.userMessage':
      hooks.answer(
        'userMessage:1',
        event.messages[0]?.blocked ? { decision: 'block', reason: 'no' } : undefined,
      );
      break;
    case 'step.done':
      (await currentRequest(harness)).answer('Done.');
      requestEnded(harness);
      break;
    case 'hook.stop':
      hooks.answer('stop:1', event.refusal ? { decision: 'block', reason: event.refusal } : undefined);
      break;
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

describe('turn chart graph paths with userMessage and stop hooks', () => {
  it('has the expected number of shortest paths', () => {
    // One path to each distinct state: through `screening` (pass, block, cancel), then up to
    // `maxStopRefusals` rounds of step → `stopping` (refuse, allow, cancel), the last step ending unasked.
    expect(paths).toHaveLength(31);
  });

  for (const path of paths) {
    const steps = path.steps.slice(1) as Step[];
    const name = steps.map((step) => label(step.event)).join(' > ') || '(created)';
    it(`${name} → ${JSON.stringify(path.state.value)}`, async () => {
      const hooks = new HoldingHooks();
      const harness = await createHarness({ limits, hooks: hooks.hooks(['userMessage', 'stop']) });
      for (const step of steps) {
        await stimulate(harness, hooks, step.event);
        const turn = actorAt(harness, ['turn']);
        const state = step.state;
        // Where the runtime rests, the real turn is where the path is.
        const resting = state.matches('screening') || state.matches('stepping') || state.matches('stopping');
        if (resting && !state.context.cancelCause) expect(turn?.value).toEqual(state.value);
        if (state.matches('screening')) expect(hooks.waiting('userMessage:1')).toBe(true);
        if (state.matches('stopping')) expect(hooks.waiting('stop:1')).toBe(true);
      }
      const expected = path.state as Snapshot;
      if (harness.run && (expected.matches('done') || expected.matches('ending'))) {
        expect((await harness.run).reason).toBe(expected.context.reason);
      }
      const refusals = harness.agent
        .log()
        .filter((event) => event.type === 'user.message' && !event.data.inboxId);
      expect(refusals).toHaveLength(expected.context.stopRefusals);
      await disposeAndCheck(harness);
      expect(hooks.stillRunning()).toEqual([]);
      if (harness.run && !expected.matches('done') && !expected.matches('ending'))
        expect((await harness.run).reason).toBe('canceled');
    });
  }
});
