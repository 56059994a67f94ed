// The recorded vendor streams in test/fixtures/recorded-streams: which exist, where each came from, and how
// to put one on the wire again exactly as the vendor sent it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WireAction } from '../wire/fake-server.ts';

export const recordedStreamsFolder = join(import.meta.dirname, '../../fixtures/recorded-streams');

/** The three wire formats; a fixture's folder says which one it speaks. */
export type RecordedApi = 'anthropic' | 'openai-chat' | 'openai-responses';

/** One server-sent event: its `event:` name (if the vendor sends one) and its `data:` text. */
export type SseMessage = { event?: string; data: string };

export type RecordedFixture = {
  /** The path below the fixtures folder, e.g. `anthropic/pause-turn.sse`. */
  name: string;
  api: RecordedApi;
  /** Repository, path and commit it was copied from (SOURCES.tsv). */
  source: { repository: string; path: string; commit: string };
  messages: SseMessage[];
};

/** Every fixture listed in SOURCES.tsv, read from disk. */
export function loadRecordedFixtures(): RecordedFixture[] {
  const lines = readFileSync(join(recordedStreamsFolder, 'SOURCES.tsv'), 'utf8').split('\n');
  return lines
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => {
      const [name = '', repository = '', path = '', commit = ''] = line.split('\t');
      const api = name.split('/')[0] as RecordedApi;
      const text = readFileSync(join(recordedStreamsFolder, name), 'utf8');
      return { name, api, source: { repository, path, commit }, messages: parseFixture(name, api, text) };
    });
}

/** Every stream file on disk, to check that SOURCES.tsv leaves none out. */
export function fixtureFilesOnDisk(): string[] {
  return (['anthropic', 'openai-chat', 'openai-responses'] as const).flatMap((api) =>
    readdirSync(join(recordedStreamsFolder, api)).map((file) => `${api}/${file}`),
  );
}

/**
 * `.sse` files are response bodies as recorded; `.jsonl` files hold one event per line (the Vercel AI SDK's
 * chunk files), which the vendor sent with the event's `type` as its name (Anthropic, Responses) or without
 * a name and closed by `[DONE]` (Chat Completions).
 */
function parseFixture(name: string, api: RecordedApi, text: string): SseMessage[] {
  if (name.endsWith('.sse')) return parseSse(text);
  const messages = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((data): SseMessage => {
      if (api === 'openai-chat') return { data };
      return { event: (JSON.parse(data) as { type: string }).type, data };
    });
  return api === 'openai-chat' ? [...messages, { data: '[DONE]' }] : messages;
}

function parseSse(text: string): SseMessage[] {
  const messages: SseMessage[] = [];
  for (const block of text.replace(/\r\n/g, '\n').split(/\n\n+/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length > 0) messages.push({ ...(event !== undefined ? { event } : {}), data: data.join('\n') });
  }
  return messages;
}

/** The fixture as the fake server's answer: every message in order, then the end of the response. */
export function replayAction(fixture: RecordedFixture): WireAction {
  const messages = fixture.messages.map(
    (message) => `${message.event !== undefined ? `event: ${message.event}\n` : ''}data: ${message.data}\n\n`,
  );
  return { type: 'sse', messages, ending: 'end' };
}

/** The JSON payloads of the fixture's messages (Chat's closing `[DONE]` left out). */
export function payloads(fixture: RecordedFixture): Record<string, unknown>[] {
  return fixture.messages
    .filter((message) => message.data !== '[DONE]')
    .map((message) => JSON.parse(message.data) as Record<string, unknown>);
}
