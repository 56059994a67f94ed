// The sources Chat Completions vendors cite, in the runtime's one `Citation` shape: OpenAI's search models
// annotate the text with `url_citation`s (offsets into the message), Perplexity lists URLs beside the
// choices (and titles in `search_results`) that the text refers to as [1], [2], ….
import { tokenCount } from './sse-common.ts';
import type { Citation } from './types.ts';

type Annotation = {
  type?: unknown;
  url_citation?: { url?: unknown; title?: unknown; start_index?: unknown; end_index?: unknown };
};

/** Gathers cited sources over a stream; `all` gives them once, in the order they were named. */
export class Sources {
  private urls: string[] = [];
  private readonly titles = new Map<string, string>();
  private readonly annotated: Citation[] = [];

  /** Perplexity repeats its whole list on every chunk: the last one holds. */
  readChunk(chunk: { citations?: unknown; search_results?: unknown }): void {
    if (Array.isArray(chunk.citations)) {
      this.urls = chunk.citations.filter((url): url is string => typeof url === 'string');
    }
    if (!Array.isArray(chunk.search_results)) return;
    for (const result of chunk.search_results as { url?: unknown; title?: unknown }[]) {
      if (typeof result?.url === 'string' && typeof result.title === 'string') {
        this.titles.set(result.url, result.title);
      }
    }
  }

  readAnnotations(annotations: unknown): void {
    if (!Array.isArray(annotations)) return;
    for (const annotation of annotations as Annotation[]) {
      const cited = annotation?.url_citation;
      if (annotation?.type !== 'url_citation' || typeof cited?.url !== 'string') continue;
      const citation: Citation = { source: 'url', url: cited.url };
      if (typeof cited.title === 'string') citation.title = cited.title;
      this.annotated.push({
        ...citation,
        start: tokenCount(cited.start_index),
        end: tokenCount(cited.end_index),
      });
    }
  }

  /** Every source; offsets past the text (a vendor's slip) are cut to its length. */
  all(textLength: number): Citation[] {
    const listed = this.urls.map((url): Citation => {
      const title = this.titles.get(url);
      return title === undefined ? { source: 'url', url } : { source: 'url', url, title };
    });
    const annotated = this.annotated.map((citation) => ({
      ...citation,
      start: Math.min(citation.start ?? 0, textLength),
      end: Math.min(citation.end ?? 0, textLength),
    }));
    return [...annotated, ...listed];
  }
}
