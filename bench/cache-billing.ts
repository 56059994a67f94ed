// A bill like the one Anthropic's prompt cache makes, for the token rows of `npm run bench`. The prompt is
// read in the API's order (tools, system, messages) as a row of blocks. At each block that carries a
// `cache_control` marker, the prefix up to it is a cache entry. A request reads the longest prefix that
// ends at one of its markers, or at most 20 blocks before one, and that an earlier request wrote within
// its lifetime (reading refreshes it); it writes everything after that up to its last marker; the rest is
// input at the full price. A prefix shorter than the model's minimum is never cached. Token counts are
// estimated at four characters a token: the shares matter here, not the absolute counts.
import { createHash } from 'node:crypto';

type Block = Record<string, unknown>;
type Request = { tools?: Block[]; system?: string | Block[]; messages: { content: string | Block[] }[] };

/** How the bill of one request splits its input. */
export type CacheBill = { uncached: number; written: number; read: number };

const lookback = 20;
const ttlMs = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;

/** The blocks of a request in cache order, each with its marker's lifetime when it has one. */
function blocksOf(request: Request): { text: string; ttl?: '5m' | '1h' }[] {
  const blocks: Block[] = [...(request.tools ?? [])];
  if (typeof request.system === 'string') blocks.push({ type: 'text', text: request.system });
  else blocks.push(...(request.system ?? []));
  for (const message of request.messages) {
    if (typeof message.content === 'string') blocks.push({ type: 'text', text: message.content });
    else blocks.push(...message.content);
  }
  return blocks.map((block) => {
    const { cache_control: marker, ...content } = block as { cache_control?: { ttl?: '5m' | '1h' } };
    return { text: JSON.stringify(content), ...(marker ? { ttl: marker.ttl ?? '5m' } : {}) };
  });
}

export class PromptCache {
  /** Prefix hash → when it expires. */
  private readonly entries = new Map<string, number>();

  constructor(private readonly minimumTokens = 1024) {}

  /** Bills `request` at `now` (ms on the bench's clock) and stores what it wrote. */
  bill(request: Request, now: number): CacheBill {
    const blocks = blocksOf(request);
    const hashes: string[] = [];
    const ends: number[] = [];
    let hash = '';
    let tokens = 0;
    for (const block of blocks) {
      hash = createHash('sha256').update(hash).update(block.text).digest('hex');
      tokens += Math.ceil(block.text.length / 4);
      hashes.push(hash);
      ends.push(tokens);
    }
    const marked = blocks.flatMap((block, index) => (block.ttl ? [index] : []));
    let readEnd = -1;
    for (const marker of marked) {
      for (let index = marker; index >= Math.max(0, marker - lookback); index--) {
        const expires = this.entries.get(hashes[index]!);
        if (expires !== undefined && expires > now && index > readEnd) {
          readEnd = index;
          break;
        }
      }
    }
    const read = readEnd >= 0 ? ends[readEnd]! : 0;
    if (readEnd >= 0) {
      const refreshed = Math.max(this.entries.get(hashes[readEnd]!)!, now + ttlMs['5m']);
      this.entries.set(hashes[readEnd]!, refreshed);
    }
    const last = marked.at(-1);
    let written = 0;
    if (last !== undefined && last > readEnd && ends[last]! >= this.minimumTokens) {
      written = ends[last]! - read;
      for (const marker of marked) {
        if (ends[marker]! < this.minimumTokens) continue;
        const ttl = ttlMs[blocks[marker]!.ttl!];
        this.entries.set(hashes[marker]!, Math.max(this.entries.get(hashes[marker]!) ?? 0, now + ttl));
      }
    }
    return { uncached: tokens - read - written, written, read };
  }
}
