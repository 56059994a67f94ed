// The turn chart's event catalogue, shared by every turn graph suite: the sample payloads, and what can
// happen in each state for each runtime the suites build (plain, with a pre-step hook, with compaction,
// with the `userMessage`/`stop` hooks, with a `preCompact` hook). Each runtime rests in other states, so
// each offers outside events in its own resting states; the samples are the same everywhere.
import type { SnapshotFrom } from 'xstate';
import { maxStopRefusals } from '../../../src/machines/hook-events.ts';
import type { StepOutcome } from '../../../src/machines/step.ts';
import type { TurnEvent, TurnInput, turnMachine } from '../../../src/machines/turn.ts';
import { emptyUsage } from '../../../src/providers/types.ts';
import { type ChartPath, pathName } from '../support/model.ts';

export type TurnSnapshot = SnapshotFrom<typeof turnMachine>;

const usage = { ...emptyUsage, inputTokens: 1, outputTokens: 1 };

/** A step's end with its outcome; tool calls as a `tools` step makes them unless given. */
export function stepDone(
  outcome: StepOutcome,
  counts: { toolCalls?: number; unknownTools?: number; usedTokens?: number; usage?: typeof usage } = {},
): TurnEvent {
  const { toolCalls = outcome === 'tools' ? 1 : 0, unknownTools = 0, usedTokens } = counts;
  const output = { outcome, toolCalls, unknownTools, usage: counts.usage ?? usage };
  return { type: 'step.done', output: usedTokens === undefined ? output : { ...output, usedTokens } };
}

const begin: TurnEvent = { type: 'turn.begin' };
const cancel: TurnEvent = { type: 'turn.cancel', cause: 'user' };
const flushed: TurnEvent = { type: 'log.flushed' };
/** A cancel tagged with the state it cancels, so a cancel in each wait is its own path (the chart ignores `from`). */
const cancelFrom = (snapshot: TurnSnapshot) =>
  ({ ...cancel, from: JSON.stringify(snapshot.value) }) as TurnEvent;

/** The input every suite's turn starts from: turn 1 of agent `a` with its follow-up claimed. */
type InputOverrides = Omit<Partial<TurnInput>, 'step'> &
  Pick<TurnInput, 'limits'> & { step?: Partial<TurnInput['step']> };

export const turnInput = (overrides: InputOverrides): TurnInput => ({
  agentKey: 'agent:a',
  turn: 1,
  followups: [{ id: 'id2', channel: 'followup', message: 'go' }],
  nextStep: [],
  preStepEveryStep: false,
  ...overrides,
  step: {
    ...{ model: 'gate-model', toolNames: ['probe'], systemHash: 'h', maxParallelTools: 10, jitterKey: 'a' },
    ...overrides.step,
  },
});

/**
 * Plain turns, with or without a pre-step hook. `created`, `starting`, `deciding` and a canceled
 * `stepping` pass within one tick in the runtime, so outside events are offered only in `preStep.hook`,
 * `stepping` and `ending`. With a hook the step outcomes are narrowed to tools/final (the limits are
 * covered without the hook).
 */
export function plainTurnEvents(hasHook: boolean) {
  const outcomes = hasHook
    ? [stepDone('tools'), stepDone('final')]
    : [
        ...[stepDone('tools'), stepDone('tools', { unknownTools: 1 }), stepDone('final')],
        ...[stepDone('continue'), stepDone('max_tokens'), stepDone('model_error')],
      ];
  return (snapshot: TurnSnapshot): TurnEvent[] => {
    const { cancelCause } = snapshot.context;
    const out: TurnEvent[] = [];
    if (snapshot.matches('created')) out.push(begin);
    const resting =
      snapshot.matches({ preStep: 'hook' }) ||
      (snapshot.matches('stepping') && !cancelCause) ||
      snapshot.matches('ending');
    if (resting && !cancelCause) out.push(cancel);
    if (resting)
      out.push({ type: 'inbox.nextStep', items: [{ id: 'n', channel: 'steer', message: 'steer' }] });
    if (snapshot.matches({ preStep: 'hook' }))
      out.push({ type: 'hook.allow' }, { type: 'hook.veto', reason: 'not now' });
    if (snapshot.matches('stepping')) out.push(...(cancelCause ? [stepDone('canceled')] : outcomes));
    if (snapshot.matches('ending')) out.push(flushed);
    return out;
  };
}

/** A window of 1,000 tokens: a step that reports 900 fills it past the 0.8 threshold. */
export const compactionWindow = { window: 1_000, full: 900 };

/**
 * Whether the runtime's planner finds something in this turn (the session's only one): the turn has two
 * steps or more behind it (the latest is kept) and no compaction ran since the latest.
 */
export const planFinds = (snapshot: TurnSnapshot) =>
  snapshot.context.stepCount >= 2 && !snapshot.context.compacting.tried;

/** With compaction, the runtime rests in a step or a summary waiting for the model, and `ending` (held flush). */
export function compactionResting(snapshot: TurnSnapshot): boolean {
  if (snapshot.context.cancelCause) return snapshot.matches('ending');
  return (
    snapshot.matches('stepping') ||
    (snapshot.matches('compacting') && planFinds(snapshot)) ||
    snapshot.matches('ending')
  );
}

/** Turns with compaction: `agent.compact()` at every resting state, and steps that fill the window. */
export function compactionTurnEvents(snapshot: TurnSnapshot): TurnEvent[] {
  const { cancelCause } = snapshot.context;
  const { full } = compactionWindow;
  const out: TurnEvent[] = [];
  if (snapshot.matches('created')) out.push(begin);
  if (compactionResting(snapshot)) {
    if (!cancelCause) out.push(cancel);
    out.push({ type: 'turn.compact' });
  }
  const none = { usage: emptyUsage };
  if (snapshot.matches('stepping')) {
    if (cancelCause) out.push(stepDone('canceled', none));
    else
      out.push(
        stepDone('tools', { ...none, usedTokens: 100 }),
        stepDone('tools', { ...none, usedTokens: full }),
        stepDone('final', { ...none, usedTokens: 100 }),
      );
  }
  if (snapshot.matches('compacting')) {
    if (cancelCause) out.push(stepDone('canceled', none));
    else if (planFinds(snapshot)) out.push(stepDone('compacted', none), stepDone('model_error', none));
    else out.push(stepDone('nothing_to_compact', none));
  }
  if (snapshot.matches('ending')) out.push(flushed);
  return out;
}

/** Room for every refusal the bound allows, so the bound (not the step limit) ends a refusing turn. */
export const stopHookLimits = { maxSteps: maxStopRefusals + 2, maxUnknownToolCalls: 2 };

const stopDecided = (outcome: 'pass' | 'block') => ({ point: 'stop' as const, hook: 'hold', outcome });

/** With `userMessage` and `stop` hooks: the two hook waits and a step waiting for the model. */
export function stopHookTurnEvents(snapshot: TurnSnapshot): TurnEvent[] {
  if (snapshot.matches('created')) return [begin];
  if (snapshot.context.cancelCause) return snapshot.matches('ending') ? [flushed] : [];
  if (snapshot.matches('screening'))
    return [
      { type: 'hook.userMessage', messages: [{ id: 'id2', decisions: [], message: 'go' }] },
      {
        type: 'hook.userMessage',
        messages: [{ id: 'id2', decisions: [], message: 'go', blocked: { reason: 'no' } }],
      },
      cancel,
    ];
  if (snapshot.matches('stepping')) return [stepDone('final', { usage: emptyUsage }), cancel];
  if (snapshot.matches('stopping'))
    return [
      { type: 'hook.stop', decisions: [stopDecided('block')], refusal: 'more' },
      { type: 'hook.stop', decisions: [stopDecided('pass')] },
      cancel,
    ];
  if (snapshot.matches('ending')) return [flushed];
  return [];
}

/** The summary a `preCompact` turn's compaction step reports. */
const compacted: TurnEvent = {
  type: 'step.done',
  output: {
    ...{ outcome: 'compacted', toolCalls: 0, unknownTools: 0, usage: emptyUsage },
    compaction: { replaces: [1, 2], summary: 'Summary.', tokensBefore: 0, trigger: 'manual' },
  },
};

/** A turn that only compacts, with a `preCompact` hook: the hook wait and the summary request. */
export function preCompactTurnEvents(snapshot: TurnSnapshot): TurnEvent[] {
  if (snapshot.matches('created')) return [begin];
  if (snapshot.context.cancelCause) return snapshot.matches('ending') ? [flushed] : [];
  if (snapshot.matches('preCompacting'))
    return [
      { type: 'hook.preCompact', decisions: [{ point: 'preCompact', hook: 'hold', outcome: 'pass' }] },
      cancelFrom(snapshot),
    ];
  if (snapshot.matches('compacting')) return [compacted, cancelFrom(snapshot)];
  if (snapshot.matches('ending')) return [flushed];
  return [];
}

/** A typed turn: its output checked, with two retries (three answers) before it ends `invalid_output`. */
export const typedOutput = { schema: { type: 'object' }, maxRetries: 2, inboxId: 'id2' };

/** With a typed run: a step waiting for the model, the check of its final answer (valid, invalid), cancels. */
export function outputTurnEvents(snapshot: TurnSnapshot): TurnEvent[] {
  if (snapshot.matches('created')) return [begin];
  if (snapshot.context.cancelCause) return snapshot.matches('ending') ? [flushed] : [];
  if (snapshot.matches('stepping')) return [stepDone('final', { usage: emptyUsage }), cancelFrom(snapshot)];
  if (snapshot.matches('checkingOutput'))
    return [
      { type: 'output.checked', valid: true },
      { type: 'output.checked', valid: false, error: 'the answer is not JSON: "no"' },
      cancelFrom(snapshot),
    ];
  if (snapshot.matches('ending')) return [flushed];
  return [];
}

/** The state a tagged cancel was sent in, or null. */
export const cancelledFrom = (event: TurnEvent | undefined): string | null =>
  event?.type === 'turn.cancel' ? ((event as { from?: string }).from ?? null) : null;

/** A step's end as a path names it: `step:<outcome>`, with what sets it apart. */
export function labelTurnEvent(event: TurnEvent): string {
  if (event.type === 'hook.userMessage')
    return event.messages[0]?.blocked ? 'userMessage:block' : 'userMessage:pass';
  if (event.type === 'hook.stop') return event.refusal ? 'stop:refuse' : 'stop:allow';
  if (event.type === 'output.checked') return event.valid ? 'output:valid' : 'output:invalid';
  const from = cancelledFrom(event);
  if (from) return `cancel@${JSON.parse(from)}`;
  if (event.type !== 'step.done') return event.type;
  if (event.output.compaction) return 'summary';
  const { outcome, unknownTools, usedTokens = 0 } = event.output;
  return `step:${outcome}${unknownTools > 0 ? '(unknown tool)' : ''}${usedTokens >= 800 ? '(full)' : ''}`;
}

/** A turn path's test name: its events as `labelTurnEvent` names them, then the state it reaches. */
export const turnTestName = (path: ChartPath<typeof turnMachine>) =>
  `${pathName(path, labelTurnEvent, { join: ' > ', empty: '(created)' })} → ${JSON.stringify(path.state.value)}`;
