import { describe, expect, it } from 'vitest';
import { AgentStateError, createAgentSystem, memoryStore, type SessionStore } from '../../src/index.ts';
import { scripted } from '../../src/testing.ts';
import { settle } from '../support/controllable.ts';

/** A memory store whose `create` waits until the test lets it finish. */
function slowCreateStore(): { store: SessionStore; finishCreate: () => void } {
  const inner = memoryStore();
  let finish: () => void = () => {};
  const store: SessionStore = {
    ...inner,
    kind: 'slow-create',
    create: async (sessionId) => {
      await new Promise<void>((resolve) => (finish = resolve));
      return inner.create(sessionId);
    },
  };
  return { store, finishCreate: () => finish() };
}

describe('system.dispose while an agent is being created', () => {
  it('rolls the creation back and rejects it with AgentStateError; nothing stays written', async () => {
    const { store, finishCreate } = slowCreateStore();
    const system = createAgentSystem({ model: scripted([]), store, projectInstructions: false });
    const creating = system.createAgent({ id: 'late' });
    const outcome = creating.then(
      () => 'created',
      (error: unknown) => error,
    );
    await settle();
    const disposed = system.dispose();
    finishCreate();
    await disposed;
    const error = await outcome;
    expect(AgentStateError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe('agent late was not created: the system was disposed');
    expect(system.list()).toEqual([]);
    expect(await store.exists('late')).toBe(false);
    await expect(system.createAgent()).rejects.toThrow('the agent system has been disposed');
  });
});
