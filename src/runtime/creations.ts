import { type AnyActorRef, waitFor } from 'xstate';
import { AgentStateError } from '../errors/agent-state-error.ts';
import { messageOf } from '../errors/describe-value.ts';

/**
 * One agent being created: its actor, and `release`, which gives back what its launch took. `signal`
 * (a background child's): when it fires, the creation is abandoned like one a system dispose reaches.
 */
export type Creation = {
  agentId: string;
  ref: AnyActorRef;
  release: () => void;
  signal?: AbortSignal | undefined;
};

/**
 * The agents of one system that are still being created, so that disposing the system can reach them:
 * each one finishes its current stage and rolls back (or, if it just became ready, disposes), and the
 * dispose waits for every launch to settle.
 */
export class Creations {
  private readonly creating = new Set<{ ref: AnyActorRef; creation: Promise<unknown> }>();
  private readonly launches = new Set<Promise<void>>();

  /** `systemDisposed` tells whether the system was disposed (then no agent may come out of creation). */
  constructor(private readonly systemDisposed: () => boolean) {}

  /**
   * Waits until the agent is ready; throws the original error when creation rolled back. A system
   * disposed meanwhile asks the agent to dispose too: it finishes its current stage, rolls back, and
   * this throws `AgentStateError` — nothing of it stays registered or written.
   */
  wait(creation: Creation): Promise<void> {
    const created = this.settle(creation);
    this.launches.add(created);
    return created.finally(() => this.launches.delete(created));
  }

  /** Asks every agent still being created to dispose, then waits until every launch has settled. */
  async disposeAll(): Promise<void> {
    const creating = [...this.creating];
    for (const { ref } of creating) ref.send({ type: 'agent.dispose' });
    await Promise.allSettled([...this.launches]);
  }

  private async settle({ agentId, ref, release, signal }: Creation): Promise<void> {
    const creation = waitFor(ref, (s) => s.status !== 'active' || s.matches('ready'), {
      timeout: Number.POSITIVE_INFINITY,
    });
    const entry = { ref, creation };
    this.creating.add(entry);
    // A parent cancelled mid-creation: the child finishes its current stage and rolls back.
    const abandon = () => ref.send({ type: 'agent.dispose' });
    signal?.addEventListener('abort', abandon, { once: true });
    const settled = await creation.finally(() => {
      this.creating.delete(entry);
      signal?.removeEventListener('abort', abandon);
    });
    const why = () =>
      this.systemDisposed() ? 'the system was disposed' : 'its parent was cancelled or disposed';
    if (settled.status !== 'active') {
      release();
      const error: unknown = settled.context.creationError;
      if (error instanceof Error) throw error;
      throw new AgentStateError(
        `agent ${agentId} was not created: ${signal?.aborted || this.systemDisposed() ? why() : messageOf(error)}`,
      );
    }
    if (this.systemDisposed() || signal?.aborted) {
      ref.send({ type: 'agent.dispose' });
      await waitFor(ref, (s) => s.status !== 'active', { timeout: Number.POSITIVE_INFINITY });
      release();
      throw new AgentStateError(`agent ${agentId} was not created: ${why()}`);
    }
  }
}
