import { describe, expect, it } from 'vitest';
import { memoryStore } from '../../src/session/memory-store.ts';
import { makeEvent, runStoreContract, sampleLog } from '../support/store-contract.ts';

runStoreContract('memoryStore', () => memoryStore());

describe('memoryStore keeps the lines of one append together', () => {
  it('loads every event of several appends back, line breaks and separators inside values included', async () => {
    const store = memoryStore();
    await store.create('s');
    const [start, turn] = sampleLog();
    const text = 'one\ntwo\r\nthree\u2028four\u2029five\n';
    const appended = [
      start!,
      turn!,
      makeEvent(2, 'user.message', { channel: 'followup', content: text }, { turn: 1 }),
      makeEvent(3, 'user.message', { channel: 'followup', content: '\n' }, { turn: 1 }),
    ];
    // One event, then two together, then an empty append, then the last one.
    await store.append('s', appended.slice(0, 1));
    await store.append('s', appended.slice(1, 3));
    await store.append('s', []);
    await store.append('s', appended.slice(3));
    const { events } = await store.load('s');
    expect(events).toEqual(appended);
    expect(events).toHaveLength(4);
  });
});
