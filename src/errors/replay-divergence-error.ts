import { AgentchartError, hasMarker } from './agentchart-error.ts';

const marker = Symbol.for('agentchart.error.ReplayDivergenceError');

/** A replayed run wrote a log that differs from the recorded one; `seq` is the first difference. */
export class ReplayDivergenceError extends AgentchartError<'replay_divergence'> {
  readonly [marker] = true;
  readonly seq: number;
  readonly expected: string | undefined;
  readonly actual: string | undefined;

  constructor(seq: number, expected: string | undefined, actual: string | undefined) {
    super(
      'replay_divergence',
      `replay diverged at seq ${seq}\n  expected: ${expected ?? '(end of log)'}\n  actual:   ${actual ?? '(end of log)'}`,
    );
    this.name = 'ReplayDivergenceError';
    this.seq = seq;
    this.expected = expected;
    this.actual = actual;
  }

  static override isInstance(value: unknown): value is ReplayDivergenceError {
    return hasMarker(value, marker);
  }
}
