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
  /** One HTTP response body each: a chunk file may hold the responses of several requests in a row. */
  responses: SseMessage[][];
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
      const messages = parseFixture(name, api, text);
      const responses = name.endsWith('.jsonl') ? splitResponses(api, messages) : [messages];
      return { name, api, source: { repository, path, commit }, responses };
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

/**
 * The Vercel AI SDK records a multi-step exchange as one chunk file: a response begins where the vendor's
 * opening event follows a finished one (Anthropic `message_start` after `message_stop`, Responses
 * `response.created` after its end), or where Chat Completions chunks change their `id`.
 */
function splitResponses(api: RecordedApi, messages: SseMessage[]): SseMessage[][] {
  const responses: SseMessage[][] = [];
  let ended = true;
  let id: unknown;
  for (const message of messages) {
    const data = message.data === '[DONE]' ? {} : (JSON.parse(message.data) as Record<string, unknown>);
    const begins =
      api === 'openai-chat'
        ? data.id !== undefined && data.id !== '' && data.id !== id && id !== undefined
        : ended && (data.type === 'message_start' || data.type === 'response.created');
    if (begins || responses.length === 0) responses.push([]);
    if (api === 'openai-chat' && data.id !== undefined && data.id !== '') id = data.id;
    if (api !== 'openai-chat') {
      if (data.type === 'message_start' || data.type === 'response.created') ended = false;
      if (
        ['message_stop', 'response.completed', 'response.incomplete', 'response.failed'].includes(
          data.type as string,
        )
      )
        ended = true;
    }
    responses.at(-1)!.push(message);
  }
  return api === 'openai-chat'
    ? responses.map((response, index) =>
        index < responses.length - 1 ? [...response, { data: '[DONE]' }] : response,
      )
    : responses;
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

/** One recorded response as the fake server's answer: every message in order, then the end. */
export function replayAction(response: SseMessage[]): WireAction {
  const messages = response.map(
    (message) => `${message.event !== undefined ? `event: ${message.event}\n` : ''}data: ${message.data}\n\n`,
  );
  return { type: 'sse', messages, ending: 'end' };
}

/** The JSON payloads of a response's messages (Chat's closing `[DONE]` left out). */
export function payloads(response: SseMessage[]): Record<string, unknown>[] {
  return response
    .filter((message) => message.data !== '[DONE]')
    .map((message) => JSON.parse(message.data) as Record<string, unknown>);
}
