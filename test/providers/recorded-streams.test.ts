// Every recorded vendor stream in test/fixtures/recorded-streams, served over a local HTTP server to the
// real SDK through the adapter, must come out as the reference readers (test/support/recorded) say: the
// text, thinking, tool calls, provider parts, citations, usage and end that the runtime will log.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toErrorData } from '../../src/actors/error-data.ts';
import { ResponseReader } from '../../src/actors/model-response.ts';
import { anthropic } from '../../src/providers/anthropic.ts';
import { openai } from '../../src/providers/openai.ts';
import type { Provider } from '../../src/providers/types.ts';
import { collect } from '../support/provider-stream.ts';
import { expectAnthropic } from '../support/recorded/expect-anthropic.ts';
import { expectChat } from '../support/recorded/expect-chat.ts';
import { expectResponses } from '../support/recorded/expect-responses.ts';
import {
  fixtureFilesOnDisk,
  loadRecordedFixtures,
  payloads,
  type RecordedFixture,
  replayAction,
  type SseMessage,
} from '../support/recorded/fixtures.ts';
import { type Outcome, summarize } from '../support/recorded/outcome.ts';
import { type FakeServer, startFakeServer } from '../support/wire/fake-server.ts';

/** How the runtime must classify the errors some streams end with (classification is policy, not data). */
const declaredErrors: Record<string, string> = {
  // Groq refused the tool call the model wrote; a new generation usually succeeds.
  'openai-chat/groq-tool-use-failed.sse': 'invalid_output',
  'openai-responses/insufficient-quota.jsonl': 'quota',
};

const fixtures = loadRecordedFixtures();

let server: FakeServer;
beforeEach(async () => {
  server = await startFakeServer();
});
afterEach(async () => {
  await server.close();
});

function providerFor(fixture: RecordedFixture): Provider {
  if (fixture.api === 'anthropic') {
    return anthropic({ model: 'claude-recorded', apiKey: 'test-key', baseURL: server.url });
  }
  const api = fixture.api === 'openai-chat' ? 'chat' : 'responses';
  return openai({ model: 'recorded', apiKey: 'test-key', baseURL: `${server.url}/v1`, api });
}

function expectedOutcome(fixture: RecordedFixture, response: SseMessage[]): Outcome {
  const events = payloads(response);
  const errorKind = declaredErrors[fixture.name];
  if (fixture.api === 'anthropic') return expectAnthropic(events, errorKind);
  if (fixture.api === 'openai-chat') return expectChat(events, errorKind);
  return expectResponses(events, errorKind);
}

describe('recorded streams', () => {
  it('lists every stream on disk in SOURCES.tsv, each with repository, path and commit', () => {
    expect(fixtures.map((fixture) => fixture.name).sort()).toEqual(fixtureFilesOnDisk().sort());
    for (const { source } of fixtures) {
      expect(source.repository).toMatch(/^[\w.-]+\/[\w.-]+$/);
      expect(source.path).not.toBe('');
      expect(source.commit).toMatch(/^[0-9a-f]{40}$/);
    }
  });

  it('covers the three APIs and OpenAI-compatible vendors besides OpenAI', () => {
    const vendors = new Set(
      fixtures
        .filter((fixture) => fixture.api === 'openai-chat')
        .map((fixture) => fixture.name.split(/[/-]/)[2]),
    );
    expect(new Set(fixtures.map((fixture) => fixture.api)).size).toBe(3);
    expect([...vendors].filter((vendor) => vendor !== 'openai').length).toBeGreaterThanOrEqual(4);
  });

  for (const fixture of fixtures) {
    it(`${fixture.name} comes out as recorded`, async () => {
      const provider = providerFor(fixture);
      for (const response of fixture.responses) {
        server.enqueue(replayAction(response));
        const events = await collect(provider);
        expect(summarize(events)).toEqual(expectedOutcome(fixture, response));
        // The runtime's reader takes the stream as it is: nothing repaired, nothing dropped.
        const reader = new ResponseReader({ turn: 1, step: 1 }, toErrorData);
        const readings = events.map((event) => reader.read(event)).filter((reading) => reading !== undefined);
        const last = readings.at(-1);
        expect(last?.type === 'model.done' ? last.notes : undefined).toBeUndefined();
      }
    });
  }
});
