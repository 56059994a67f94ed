// The bench's prompt-cache bill (bench/cache-billing.ts) must bill as Anthropic documents, or the token
// rows measure nothing: a prefix is read only where an earlier request wrote it and within its lifetime,
// written only up to the last marker, never when shorter than the minimum.
import { describe, expect, it } from 'vitest';
import { PromptCache } from '../../bench/cache-billing.ts';

const marker = { type: 'ephemeral' };
const text = (chars: number, marked = false) => ({
  type: 'text',
  text: 'x'.repeat(chars),
  ...(marked ? { cache_control: marker } : {}),
});
// One block of 4,000 characters is 1,000 tokens plus its JSON framing.
const tokens = (block: object) =>
  Math.ceil(JSON.stringify({ ...block, cache_control: undefined }).length / 4);

describe('the bench prompt cache', () => {
  it('writes up to the last marker, reads it back within its lifetime, and only then', () => {
    const cache = new PromptCache(1024);
    const first = { system: [text(8_000, true)], messages: [{ content: [text(400, true)] }] };
    const size = tokens(text(8_000)) + tokens(text(400));
    expect(cache.bill(first, 0)).toEqual({ uncached: 0, written: size, read: 0 });
    const second = {
      system: [text(8_000, true)],
      messages: [{ content: [text(400, true)] }, { content: [text(800, true)] }],
    };
    expect(cache.bill(second, 60_000)).toEqual({ uncached: 0, written: tokens(text(800)), read: size });
    // Ten minutes later the five-minute entries are gone: everything is written again.
    const later = cache.bill(second, 60_000 + 10 * 60_000);
    expect(later.read).toBe(0);
    expect(later.written).toBe(size + tokens(text(800)));
  });

  it('caches nothing below the minimum, and nothing past the last marker', () => {
    const cache = new PromptCache(1024);
    const small = { system: [text(400, true)], messages: [{ content: [text(400)] }] };
    expect(cache.bill(small, 0)).toEqual({ uncached: tokens(text(400)) * 2, written: 0, read: 0 });
    const unmarked = { system: [text(8_000)], messages: [{ content: [text(400)] }] };
    expect(cache.bill(unmarked, 0).written).toBe(0);
  });
});
