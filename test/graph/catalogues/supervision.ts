// The supervision chart's catalogue: one child supervised with one restart (`maxRestarts: 1`), what can
// happen in each state the runtime rests in, with sample payloads, the bounded key and the labels of a
// path's events. `starting` passes by itself; so does `restarting` (a restart answers at once here: its
// stop and a failed restart are the unit suite's, test/machines/supervision.test.ts).
import type { SnapshotFrom } from 'xstate';
import type {
  SupervisionEvent,
  SupervisionInput,
  supervisionMachine,
} from '../../../src/machines/supervision.ts';

export type SupervisionSnapshot = SnapshotFrom<typeof supervisionMachine>;

/** The child every path supervises (the first id after the parent's), one restart, 100 ms backoff. */
export const supervisionInput: SupervisionInput = {
  childId: 'id3',
  policy: { restart: 'on-failure', maxRestarts: 1, backoffMs: 100 },
  restarts: 0,
};

/**
 * While the child runs: its turn completes, fails `model_error`, is cancelled (its parent stopped it), or
 * its run breaks off (`child.crashed`: its log could not be written). Backing off: the timer, or a stop.
 */
export function supervisionEvents(snapshot: SupervisionSnapshot): SupervisionEvent[] {
  if (snapshot.matches('running'))
    return [
      { type: 'child.ended', reason: 'completed' },
      { type: 'child.ended', reason: 'model_error', error: 'test bad_request' },
      { type: 'child.ended', reason: 'canceled' },
      { type: 'child.crashed', error: 'the store refused the write' },
    ];
  if (snapshot.matches('backingOff')) return [{ type: 'retry.due' }, { type: 'supervision.stop' }];
  if (snapshot.matches('restarting')) return [{ type: 'child.restarted' }];
  return [];
}

/** Bounded key: the state, the restarts, and the last failure's reason. */
export function serializeSupervision(snapshot: SupervisionSnapshot): string {
  const { restarts, failure } = snapshot.context;
  return JSON.stringify([snapshot.value, restarts, failure?.reason ?? null]);
}

export function labelSupervisionEvent(event: SupervisionEvent): string {
  if (event.type === 'child.ended') return `ended ${event.reason}`;
  if (event.type === 'child.crashed') return 'crashed';
  return event.type;
}
