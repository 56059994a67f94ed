// A tool-batch actor advanced by pure transitions, and check results to feed it: the chart unit tests'
// way to drive a batch without running any actor.
import { initialTransition, type SnapshotFrom, transition } from 'xstate';
import {
  type BatchDoneEvent,
  type BatchOutput,
  type CallCheck,
  type ToolBatchEvent,
  type ToolBatchInput,
  toolBatchMachine,
} from '../../src/machines/tool-batch.ts';
import { describeEffects, type MachineAction, reportIn } from './machine-effects.ts';

export type Snapshot = SnapshotFrom<typeof toolBatchMachine>;

export const effects = (actions: readonly MachineAction[]) => describeEffects(actions, { hideReports: true });

/**
 * A batch actor's snapshot advanced by pure transitions; `out` holds the effects of the last one and
 * `reported` what the batch reported to its step once every call had its result.
 */
export class Batch {
  out: string[] = [];
  reported: BatchOutput | undefined;
  constructor(public snapshot: Snapshot) {}

  send(event: ToolBatchEvent): string[] {
    const [next, actions] = transition(toolBatchMachine, this.snapshot, event);
    this.snapshot = next;
    this.out = effects(actions);
    this.reported ??= reportIn<BatchDoneEvent>(actions, 'batch.done')?.output;
    return this.out;
  }

  /** Reported to the step and back in `idle`, waiting for the next batch. */
  get done(): boolean {
    return this.reported !== undefined && this.snapshot.value === 'idle';
  }
}

/** A batch actor (turn 2) that begins the calls of step 3. */
export function start(ids: string[], maxParallel = 10): Batch {
  const input: ToolBatchInput = { agentKey: 'agent:a', turn: 2, maxParallel };
  const [snapshot] = initialTransition(toolBatchMachine, input);
  const batch = new Batch(snapshot);
  batch.send({
    type: 'batch.begin',
    step: 3,
    calls: ids.map((id) => ({ id, name: 'probe', input: { value: id } })),
  });
  return batch;
}

export const run = (callId: string, safe = true): CallCheck => ({
  callId,
  input: { value: callId },
  safe,
  verdict: 'run',
});
export const ask = (callId: string): CallCheck => ({
  callId,
  input: { value: callId },
  safe: false,
  verdict: 'ask',
});
export const reject = (callId: string, extra: Partial<CallCheck> = {}): CallCheck => ({
  callId,
  input: 1,
  safe: false,
  verdict: 'reject',
  outcome: 'error',
  content: `bad ${callId}`,
  ...extra,
});
export const ok = (callId: string): ToolBatchEvent => ({
  type: 'tool.settled',
  callId,
  outcome: 'ok',
  content: callId,
});
export const phases = (snapshot: Snapshot) =>
  snapshot.context.calls.map((call) => `${call.callId}:${call.phase}${call.committed ? '+' : ''}`);
