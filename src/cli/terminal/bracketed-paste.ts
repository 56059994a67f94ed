// Bracketed paste (xterm's "paste mode"): once a program writes `ESC [ ? 2004 h`, the terminal wraps pasted
// text in `ESC [ 200 ~` … `ESC [ 201 ~`, so a pasted newline can be told from a typed Enter.

/** Turns bracketed paste on; write it to a terminal. */
export const enableBracketedPaste = '\u001b[?2004h';
/** Turns bracketed paste off again; write it before the program leaves the terminal. */
export const disableBracketedPaste = '\u001b[?2004l';

const pasteStart = '\u001b[200~';
const pasteEnd = '\u001b[201~';

/** A piece of input: keys typed, or one whole paste (its newlines kept, CRLF and CR made `\n`). */
export type InputPiece = { kind: 'typed'; text: string } | { kind: 'pasted'; text: string };

/**
 * Splits terminal input into typed keys and whole pastes. The markers may arrive split across chunks:
 * the end of a chunk that could start a marker (`ESC [` or more) is held back until the next chunk says
 * what it is.
 */
export class PasteParser {
  private pending = '';
  private pasting = false;
  private pasted = '';

  /** The pieces `chunk` completes, in order; typed keys inside one chunk come out as one piece. */
  feed(chunk: string): InputPiece[] {
    const pieces: InputPiece[] = [];
    let text = this.pending + chunk;
    this.pending = '';
    for (;;) {
      const marker = this.pasting ? pasteEnd : pasteStart;
      const at = text.indexOf(marker);
      if (at === -1) {
        // A lone ESC outside a paste is the Esc key, not the start of a marker: it is never held back.
        const kept = partialMarkerLength(text, marker, this.pasting ? 1 : 2);
        this.take(text.slice(0, text.length - kept), pieces);
        this.pending = text.slice(text.length - kept);
        return pieces;
      }
      this.take(text.slice(0, at), pieces);
      text = text.slice(at + marker.length);
      if (this.pasting) {
        pieces.push({ kind: 'pasted', text: this.pasted.replace(/\r\n?/g, '\n') });
        this.pasted = '';
      }
      this.pasting = !this.pasting;
    }
  }

  private take(text: string, pieces: InputPiece[]): void {
    if (text === '') return;
    if (this.pasting) this.pasted += text;
    else pieces.push({ kind: 'typed', text });
  }
}

/** How many characters at the end of `text` could be the start of `marker`. */
function partialMarkerLength(text: string, marker: string, shortest: number): number {
  for (let length = Math.min(marker.length - 1, text.length); length >= shortest; length--) {
    if (marker.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}
