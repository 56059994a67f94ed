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

describe('LiveBus backpressure', () => {
  it('cuts off a consumer that falls too far behind, after handing over what it buffered', async () => {
    const bus = new LiveBus();
    const iterator = bus.iterate({ maxBuffered: 3 });
    for (const text of ['a', 'b', 'c', 'd', 'e']) bus.publish(delta(text));
    expect(bus.hasListeners).toBe(false);
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const event of iterator) if (event.type === 'model.delta') seen.push(event.text);
      })(),
    ).rejects.toThrow('live events: the consumer fell more than 3 events behind and was cut off');
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('keeps a steady consumer going across many events without holding them all', async () => {
    const bus = new LiveBus();
    const iterator = bus.iterate({ maxBuffered: 10 });
    let received = 0;
    for (let i = 0; i < 5_000; i++) {
      bus.publish(delta(String(i)));
      const next = await iterator.next();
      if (!next.done && next.value.type === 'model.delta' && next.value.text === String(i)) received++;
    }
    expect(received).toBe(5_000);
    await iterator.return?.();
  });
});
