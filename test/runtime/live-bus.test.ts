import { describe, expect, it } from 'vitest';
import { LiveBus } from '../../src/runtime/live-bus.ts';

const delta = (text: string) => ({ type: 'model.delta' as const, agentId: 'a', turn: 1, step: 1, text });

describe('LiveBus', () => {
  it('delivers events published after iteration began, in order, and ends on close', async () => {
    const bus = new LiveBus();
    const iterator = bus.iterate();
    bus.publish(delta('a'));
    bus.publish(delta('b'));
    bus.close();
    const seen: string[] = [];
    for await (const event of iterator) if (event.type === 'model.delta') seen.push(event.text);
    expect(seen).toEqual(['a', 'b']);
    expect(bus.hasListeners).toBe(false);
  });

  it('return() releases a next() that is waiting and unsubscribes', async () => {
    const bus = new LiveBus();
    const iterator = bus.iterate();
    const waiting = iterator.next();
    await iterator.return?.();
    await expect(waiting).resolves.toEqual({ value: undefined, done: true });
    expect(bus.hasListeners).toBe(false);
  });
});
