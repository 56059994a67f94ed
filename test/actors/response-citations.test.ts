// Citations a provider yields are kept on the logged message in their documented shape, or dropped with a
// note when they are malformed; they never end the step.
import { describe, expect, it } from 'vitest';
import { toErrorData } from '../../src/actors/error-data.ts';
import { ResponseReader } from '../../src/actors/model-response.ts';

function read(events: unknown[]) {
  const reader = new ResponseReader({ turn: 1, step: 1 }, toErrorData);
  return events
    .map((event) => reader.read(event))
    .filter((reading) => reading !== undefined)
    .at(-1);
}

describe('citations in a response', () => {
  it('keeps well-formed citations, with only their documented fields, in order', () => {
    const done = read([
      { type: 'text.delta', text: 'Paris is the capital.' },
      {
        type: 'citation',
        citation: { source: 'url', url: 'https://a.example', title: 'A', start: 0, end: 5, vendor: 'x' },
      },
      { type: 'citation', citation: { source: 'file', fileId: 'file-1', start: 9, end: 9 } },
      { type: 'citation', citation: { source: 'document', citedText: 'capital' } },
      { type: 'done', stopReason: 'end_turn' },
    ]);
    expect(done).toEqual({
      type: 'model.done',
      text: 'Paris is the capital.',
      toolCalls: [],
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      stopReason: 'end_turn',
      citations: [
        { source: 'url', url: 'https://a.example', title: 'A', start: 0, end: 5 },
        { source: 'file', fileId: 'file-1', start: 9, end: 9 },
        { source: 'document', citedText: 'capital' },
      ],
    });
  });

  it('drops a malformed citation with a note and goes on', () => {
    const done = read([
      { type: 'citation', citation: 'https://a.example' },
      { type: 'citation', citation: { source: 'book' } },
      { type: 'citation', citation: { source: 'url', url: 7 } },
      { type: 'citation', citation: { source: 'url', start: 5, end: 2 } },
      { type: 'citation', citation: { source: 'url', start: 1 } },
      { type: 'done', stopReason: 'end_turn' },
    ]);
    expect(done).toMatchObject({ type: 'model.done', stopReason: 'end_turn' });
    expect(done).not.toHaveProperty('citations');
    expect(done?.type === 'model.done' ? done.notes : undefined).toEqual([
      'a citation was dropped: it was "https://a.example"',
      'a citation was dropped: its source is "book"',
      'a citation was dropped: its url is number 7',
      'a citation was dropped: its range is number 5 to number 2',
      'a citation was dropped: its range is number 1 to undefined',
    ]);
  });
});
