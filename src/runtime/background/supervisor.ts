// The runtime's side of a background child's supervision (the chart is machines/supervision.ts): the
// actors it spawns — the child's turn, the backoff's timer on the injected clock, the restart from the
// child's own log — and the report of each restart in the parent's log. One logic per system, provided
// once; each child's supervision finds its record by the child's id, as the agent's actors find their ports
// by the agent key.
import { type AnyActorRef, createActor } from 'xstate';
import { fromTask } from '../../actors/from-task.ts';
import { createRetryTimerActor } from '../../actors/timer.ts';
import type { Clock } from '../../core/clock.ts';
import { messageOf } from '../../errors/describe-value.ts';
import {
  type SupervisionEvent,
  type SupervisionInput,
  supervisionMachine,
} from '../../machines/supervision.ts';
import type { RestartReport, SupervisedFailure } from '../../machines/supervision-types.ts';
import type { ChildRecord } from './child-record.ts';

/** How a supervision ended: its final state, and the last failure it heard of. */
export type SupervisionEnd = {
  state: 'done' | 'escalated' | 'stopped';
  failure: SupervisedFailure | undefined;
  restarts: number;
};

export type SupervisorDeps = {
  clock: Clock;
  /** The record of a supervised child, by its id. */
  record: (childId: string) => ChildRecord | undefined;
  /** Writes `agent.restarted` in the parent's log (durably). */
  report: (record: ChildRecord, report: RestartReport) => void;
  /** Brings the child back from its log when its agent is gone, writes `session.restarted`, runs it again. */
  restart: (record: ChildRecord, restart: { attempt: number; failure: SupervisedFailure }) => Promise<void>;
  /** A failure nobody waits for, told to the parent's host. */
  onError: (record: ChildRecord, error: unknown) => void;
};

/** The message that starts the work again after restart `attempt`, saying what failed. */
export function restartMessage(failure: SupervisedFailure, attempt: number, maxRestarts: number): string {
  const what =
    failure.reason === 'model_error'
      ? `the model request failed${failure.error ? ` (${failure.error})` : ''}`
      : `your run stopped abnormally${failure.error ? ` (${failure.error})` : ''}`;
  return (
    `Your last turn did not finish: ${what}. You were restarted (restart ${attempt} of ${maxRestarts}). ` +
    'Continue the task from where it stopped. The tool results above are real and their calls are not run ' +
    'again: check them before repeating anything.'
  );
}

/** The supervision logic of one system's background children, with the runtime's actors. */
export class Supervisor {
  private readonly logic;

  constructor(private readonly deps: SupervisorDeps) {
    const recordOf = (childId: string): ChildRecord => {
      const record = deps.record(childId);
      if (!record) throw new Error(`no background child "${childId}" is supervised`);
      return record;
    };
    this.logic = supervisionMachine.provide({
      actors: {
        childTurn: fromTask(
          ({ childId }: { childId: string; restarts: number }) => {
            const record = recordOf(childId);
            return record.turn.then(() => record.outcome);
          },
          (result): SupervisionEvent => {
            const outcome = result.ok ? result.value : { error: result.error };
            if (outcome && 'result' in outcome) {
              const { reason, error } = outcome.result;
              return { type: 'child.ended', reason, ...(error ? { error: error.message } : {}) };
            }
            return { type: 'child.crashed', error: messageOf(outcome?.error) };
          },
        ),
        restartTimer: createRetryTimerActor(deps.clock),
        childRestart: fromTask(
          (input: { childId: string; attempt: number; failure: SupervisedFailure }) =>
            deps.restart(recordOf(input.childId), input),
          (result): SupervisionEvent =>
            result.ok
              ? { type: 'child.restarted' }
              : { type: 'child.crashed', error: messageOf(result.error) },
        ),
      },
      actions: {
        reportRestart: ({ context }, report: RestartReport) => deps.report(recordOf(context.childId), report),
      },
    });
  }

  /** Supervises `record`'s child from its current turn on; resolves once the supervision has ended. */
  supervise(record: ChildRecord, input: Omit<SupervisionInput, 'childId'>): Promise<SupervisionEnd> {
    const actor: AnyActorRef = createActor(this.logic, { input: { ...input, childId: record.id } });
    record.supervisor = actor;
    return new Promise((resolve) => {
      const end = (state: SupervisionEnd['state']) => {
        subscription.unsubscribe();
        record.supervisor = undefined;
        const { failure, restarts } = actor.getSnapshot().context;
        resolve({ state, failure, restarts });
      };
      const subscription = actor.subscribe({
        next: (snapshot) => {
          if (snapshot.status === 'done') end(snapshot.value as SupervisionEnd['state']);
        },
        // Nothing in the chart throws; if an actor of it did, the child is left as it is and its parent told.
        error: (error) => {
          this.deps.onError(record, error);
          end('done');
        },
      });
      actor.start();
      // A stop asked for before the supervision began is heard at once.
      if (record.stopping) actor.send({ type: 'supervision.stop' });
    });
  }
}
