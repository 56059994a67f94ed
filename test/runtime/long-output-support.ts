// Shared by the tests of long tool results: a tool with a 200,000-character answer, a scripted model
// that reads the note and acts on the saved file, and a system built with deterministic ids and time.
import { existsSync } from 'node:fs';
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import {
  type AgentSystemOptions,
  createAgentSystem,
  defineTool,
  type FileStore,
  type LogEvent,
  type SessionStore,
} from '../../src/index.ts';
import { type ScriptEntry, SimulatedClock } from '../../src/testing.ts';

/** 5,000 lines of 40 characters: `row 00001 xxx…`. */
export const bigOutput = Array.from(
  { length: 5000 },
  (_, index) => `row ${String(index + 1).padStart(5, '0')} ${'x'.repeat(29)}\n`,
).join('');

export const dump = defineTool({
  name: 'dump',
  description: 'Prints a very long report.',
  access: 'read',
  concurrencySafe: true,
  input: z.object({}),
  run: async () => bigOutput,
});

export const fail = defineTool({
  name: 'fail',
  description: 'Fails with a very long message.',
  access: 'read',
  input: z.object({}),
  run: async () => {
    throw new Error(bigOutput);
  },
});

/** The saved-output path a result's note gives. */
export function notedPath(content: string): string {
  const match = /"path":"(\/agentchart-outputs\/[^"]+)"/.exec(content);
  if (!match) throw new Error(`no saved-output path in: ${content.slice(0, 200)}`);
  return match[1]!;
}

/** The content of the last tool message of a request. */
export function lastToolContent(request: { messages: readonly { role: string }[] }): string {
  const message = request.messages.findLast((entry) => entry.role === 'tool') as
    | { content: string }
    | undefined;
  return message?.content ?? '';
}

/** Step 1 calls `dump`; step 2 reads lines 2500-2502 of the saved file through its noted path. */
export const readBack: ScriptEntry[] = [
  { toolCalls: [{ id: 'c1', name: 'dump', input: {} }] },
  (request) => ({
    toolCalls: [
      {
        id: 'c2',
        name: 'read_file',
        input: { path: notedPath(lastToolContent(request)), offset: 2500, limit: 3 },
      },
    ],
  }),
  { text: 'Read it.' },
];

export async function tempDir(name: string): Promise<string> {
  return realpath(await mkdtemp(path.join(tmpdir(), `agentchart-${name}-`)));
}

/** A system with counter ids and a simulated clock, so two runs of one script write the same log. */
export function deterministicSystem(options: AgentSystemOptions) {
  let next = 0;
  return createAgentSystem({
    ids: () => `id-${++next}`,
    clock: new SimulatedClock(1_767_225_600_000),
    projectInstructions: false,
    ...options,
  });
}

export function resultOf(log: readonly LogEvent[], callId: string) {
  const event = log.find((entry) => entry.type === 'tool.result' && entry.data.callId === callId);
  return event?.data as { outcome: string; content: string; error?: string } | undefined;
}

/**
 * A store that, whenever a `tool.result` naming a saved output is appended, records whether the saved
 * file was already there: the write-ahead rule, seen from the store.
 */
export function watchingStore(inner: FileStore, seen: boolean[]) {
  const folder = (id: string) => inner.outputsFolder!(id);
  const store: SessionStore = {
    kind: 'watching',
    create: (id) => inner.create(id),
    append: (id, events) => {
      for (const event of events) {
        const content = event.type === 'tool.result' ? String(event.data.content) : '';
        // A note gives the path as JSON; a refusal that merely echoes such a path is not a note.
        if (content.includes('"path":"/agentchart-outputs/')) {
          seen.push(existsSync(path.join(folder(id), path.basename(notedPath(content)))));
        }
      }
      return inner.append(id, events);
    },
    load: (id) => inner.load(id),
    exists: (id) => inner.exists(id),
    remove: (id) => inner.remove(id),
    list: () => inner.list(),
    outputsFolder: folder,
  };
  return store;
}
