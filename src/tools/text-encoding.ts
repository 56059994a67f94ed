/** U+FFFD, which a UTF-8 decoder puts in place of bytes that are not UTF-8. */
export const replacementCharacter = '\uFFFD';

/**
 * Decodes a stream of bytes as UTF-8 for the model while noticing whether every byte was valid UTF-8.
 * Invalid bytes decode to U+FFFD, as everywhere in Node; a byte-order mark is kept, so the text shown is
 * the text in the file.
 */
export class Utf8Decoder {
  private readonly lenient = new TextDecoder('utf-8', { ignoreBOM: true });
  private readonly strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  private valid = true;

  /** Text of the next chunk (a character split across chunks comes out with the later one). */
  decode(chunk: Uint8Array): string {
    this.check(() => this.strict.decode(chunk, { stream: true }));
    return this.lenient.decode(chunk, { stream: true });
  }

  /** The rest of the text at the end of the stream. */
  end(): string {
    this.check(() => this.strict.decode());
    return this.lenient.decode();
  }

  /** Whether every byte so far was UTF-8 (final after `end`). */
  get isValid(): boolean {
    return this.valid;
  }

  private check(decode: () => string): void {
    if (!this.valid) return;
    try {
      decode();
    } catch (error) {
      // The fatal decoder throws a TypeError on the first invalid byte; that is the answer sought.
      if (!(error instanceof TypeError)) throw error;
      this.valid = false;
    }
  }
}
