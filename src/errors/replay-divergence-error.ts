import { AgentchartError } from './agentchart-error.ts';

/** A replayed run wrote a log that differs from the recorded one; `seq` is the first difference. */
export class ReplayDivergenceError extends AgentchartError {
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
}
