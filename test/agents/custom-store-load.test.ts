// A store written by someone else may hand back anything from load(). Resume and fork read it as they
// would read a file: a LogFormatError naming the session and the bad event, never a crash, and nothing
// written.
import { describe, expect, it } from 'vitest';
import { createAgentSystem, LogFormatError, memoryStore, type SessionStore } from '../../src/index.ts';
import { scripted } from '../../src/testing.ts';

/** A memory store holding one finished session whose load() answer is rewritten by `tamper`. */
async function tamperedStore(tamper: (loaded: { events: Record<string, unknown>[] }) => unknown) {
  const inner = memoryStore();
  const system = createAgentSystem({
    model: scripted([{ text: 'Hi.' }]),
    store: inner,
    projectInstructions: false,
  });
  const agent = await system.createAgent({ id: 's' });
  await agent.run('hello');
  await system.dispose();
  const store: SessionStore = {
    ...inner,
    kind: 'custom',
    load: async (sessionId) => {
      const loaded = await inner.load(sessionId);
      return tamper(structuredClone(loaded) as { events: Record<string, unknown>[] }) as typeof loaded;
    },
  };
  return { inner, store };
}

const cases: [string, (loaded: { events: Record<string, unknown>[] }) => unknown, string][] = [
  ['no events array', () => ({ warnings: [] }), "the store's load() did not return { events: [...] }"],
  ['null', () => null, "the store's load() did not return { events: [...] }"],
  ['a gap in seq', (l) => ({ ...l, events: l.events.filter((_, i) => i !== 2) }), 'seq must be contiguous'],
  [
    'an event that is not an object',
    (l) => ({ ...l, events: [l.events[0], 'turn.start'] }),
    'event 1: expected a JSON object',
  ],
  [
    'an event whose data does not match its type',
    (l) => ({
      ...l,
      events: [
        ...l.events,
        { v: 1, seq: l.events.length, ts: 1, type: 'step.end', data: { toolResults: 'x' } },
      ],
    }),
    'bad data for "step.end"',
  ],
  [
    'a newer format',
    (l) => ({ ...l, events: [{ ...l.events[0], v: 99 }, ...l.events.slice(1)] }),
    'written by a newer agentchart',
  ],
];

describe('resume and fork of a custom store whose load() answers garbage', () => {
  it.each(cases)('refuses %s with a LogFormatError and writes nothing', async (_name, tamper, message) => {
    const { inner, store } = await tamperedStore(tamper);
    const before = (await inner.load('s')).events;
    const system = createAgentSystem({ model: scripted([]), store, projectInstructions: false });
    for (const attempt of [() => system.resumeAgent('s'), () => system.forkAgent('s', { id: 'f' })]) {
      const error = await attempt().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(LogFormatError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain(message);
    }
    await system.dispose();
    expect((await inner.load('s')).events).toEqual(before);
    expect(await inner.exists('f')).toBe(false);
  });
});
