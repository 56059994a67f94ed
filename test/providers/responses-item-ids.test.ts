// GitHub Copilot's Responses endpoint sends a new `item_id` on every event of one output item; the adapter
// reads one item per `output_index`. The stream is Copilot's own, recorded by the AI SDK (SOURCES.tsv).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openai } from '../../src/providers/openai.ts';
import { collapse, collect } from '../support/provider-stream.ts';
import { loadRecordedFixtures, payloads, replayAction } from '../support/recorded/fixtures.ts';
import { type FakeServer, startFakeServer } from '../support/wire/fake-server.ts';

let server: FakeServer;
beforeEach(async () => {
  server = await startFakeServer();
});
afterEach(async () => {
  await server.close();
});

const recording = loadRecordedFixtures().find(
  (fixture) => fixture.name === 'openai-responses/copilot-rotating-item-ids.jsonl',
)!;
const response = recording.responses[0]!;
/** The finished items as the vendor sent them, by output index. */
const [reasoningDone, messageDone] = payloads(response)
  .filter((event) => event.type === 'response.output_item.done')
  .map((event) => event.item as Record<string, unknown>);

const answer =
  'There are **3** letter **“r”**s in **“strawberry.”**\n\n' +
  'Breakdown: **s t r a w b e r r y**  \n' +
  'You can see **r** at positions **3, 8, and 9**.';

describe('a Responses stream whose item ids rotate (GitHub Copilot)', () => {
  it('really rotates: every event of the message carries another item id', () => {
    const messageIds = payloads(response)
      .filter((event) => event.output_index === 1)
      .map((event) => (event.item_id ?? (event.item as { id: string }).id) as string);
    expect(messageIds.length).toBe(60);
    expect(new Set(messageIds).size).toBe(60);
  });

  it('yields the text the vendor sent, once, and keeps each item under the id it was announced with', async () => {
    server.enqueue(replayAction(response));
    const provider = openai({
      model: 'gpt-5.3-codex',
      apiKey: 'test-key',
      baseURL: `${server.url}/v1`,
      api: 'responses',
    });
    const events = await collect(provider);
    const deltas = events.flatMap((event) => (event.type === 'text.delta' ? [event.text] : []));
    expect(deltas.join('')).toBe(answer);
    expect(answer.length).toBe(138);
    // One delta per vendor delta (55 of them): no blank line put between pieces of the one message.
    expect(deltas.length).toBe(55);
    expect(collapse(events)).toEqual([
      { type: 'thinking.delta', text: '**Counting character occurrences**' },
      { type: 'text.delta', text: answer },
      {
        type: 'provider_part',
        part: { provider: 'openai', type: 'reasoning', data: { ...reasoningDone, id: 'capture-id-3' } },
      },
      {
        type: 'provider_part',
        part: { provider: 'openai', type: 'message', data: { ...messageDone, id: 'capture-id-9' } },
      },
      {
        type: 'usage',
        usage: { inputTokens: 19, outputTokens: 105, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
      { type: 'done', stopReason: 'end_turn' },
    ]);
  });
});
