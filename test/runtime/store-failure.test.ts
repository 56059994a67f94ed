import { describe, expect, it } from 'vitest';
import { createAgentSystem, memoryStore, type SessionStore } from '../../src/index.ts';
import { scripted } from '../../src/testing.ts';

describe('a session store that starts failing', () => {
  it('ends the turn with model_error, run() rejects with the store error, and the store keeps a valid prefix', async () => {
    const inner = memoryStore();
    let failing = false;
    const store: SessionStore = {
      ...inner,
      kind: 'flaky',
      append: async (sessionId, events) => {
        if (failing) throw new Error('disk full');
        return inner.append(sessionId, events);
      },
    };
    const system = createAgentSystem({
      model: scripted([{ text: 'never sent' }]),
      store,
      projectInstructions: false,
    });
    const agent = await system.createAgent({ id: 'a' });
    failing = true;
    const result = await agent.run('hello').catch((error: unknown) => error);
    failing = false;
    // The turn's end could not be made durable, so run() reports the store's error rather than a result.
    expect(result).toBeInstanceOf(Error);
    expect((result as Error).message).toBe('disk full');
    const stored = (await inner.load('a')).events;
    expect(stored.map((event) => event.type)).toEqual(['session.start']);
    const endOfTurn = agent.log().find((event) => event.type === 'turn.end');
    expect(endOfTurn?.data).toMatchObject({
      reason: 'model_error',
      error: { kind: 'server', retryable: false, message: 'the session log could not be written: disk full' },
    });
    await system.dispose();
    expect((await inner.load('a')).events).toHaveLength(1);
  });
});

describe('a session store that fails with something that is not an Error', () => {
  const unprintable = () => Object.create(null) as object; // String() of it throws a TypeError
  it.each([
    ['a null-prototype object', unprintable, '{}'],
    ['undefined', () => undefined, 'undefined'],
    ['a number', () => 42, '42'],
  ])(
    'ends the turn with model_error when it rejects with %s, and dispose still finishes',
    async (_name, reason, text) => {
      const inner = memoryStore();
      let failing = false;
      const store: SessionStore = {
        ...inner,
        kind: 'odd',
        append: async (sessionId, events) => {
          if (failing) throw reason();
          return inner.append(sessionId, events);
        },
      };
      const system = createAgentSystem({
        model: scripted([{ text: 'never sent' }]),
        store,
        projectInstructions: false,
      });
      const agent = await system.createAgent({ id: 'a' });
      failing = true;
      await agent.run('hello').catch(() => {
        // run() rejects with the store's own value; what matters is how the turn ended and that nothing hangs.
      });
      const endOfTurn = agent.log().find((event) => event.type === 'turn.end');
      expect(endOfTurn?.data).toMatchObject({
        reason: 'model_error',
        error: { kind: 'server', retryable: false, message: `the session log could not be written: ${text}` },
      });
      failing = false;
      await system.dispose();
      expect((await inner.load('a')).events.map((event) => event.type)).toEqual(['session.start']);
    },
  );
});
