import { nodeType, type ShellNode, type ShellStatement, type ShellWord } from './shell-syntax.ts';

/** One word of a command line as bash will pass it, and how rules see it. */
export type WordReading = {
  /** The word after quote removal, or `undefined` when an expansion decides it at run time. */
  text: string | undefined;
  /** What expansion it holds when `text` is undefined ("a parameter expansion"). */
  expansion?: string;
  /** Whether bash may still turn it into other words: an unquoted `*`, `?`, `[`, `{`, `}` or a leading `~`. */
  pattern: boolean;
  /**
   * The word as rules match it: quotes removed, then single quotes around any run a rule could misread; a
   * word with an expansion as written.
   */
  shown: string;
};

/** What the word reader hands back to the command reader: commands and arithmetic inside a word. */
export type WordVisitor = {
  statements(statements: ShellStatement[]): void;
  arithmetic(node: ShellNode | null): void;
  /** A node the reader has no rule for: the whole line becomes unsure. */
  unknown(what: string): void;
  /** The text of a node as the line wrote it. */
  source(node: ShellNode): string;
};

type Piece = { text: string; active: boolean };

// Characters that a rule could read as a word break, an operator or a pattern: a literal run holding one is
// shown single-quoted, so `"npm test"` (one word) never looks like `npm test` (two).
const needsQuotes = /[^A-Za-z0-9_@%+=:,./-]/;
const patternCharacters = new Set(['*', '?', '[', ']', '{', '}']);

/** Reads a word: quote removal, ANSI-C escapes, and the expansions bash would still perform. */
export function readWord(word: ShellWord, visitor: WordVisitor): WordReading {
  const pieces: Piece[] = [];
  let expansion: string | undefined;
  const expand = (what: string) => {
    expansion ??= what;
  };
  for (const part of word.Parts) readPart(part, pieces, { visitor, expand, quoted: false });
  const pattern = pieces.some((piece) => piece.active);
  // A word an expansion decides is shown as written: rules see `$(rm x)`, never what it may become.
  if (expansion !== undefined) return { text: undefined, expansion, pattern, shown: visitor.source(word) };
  const text = pieces.map((piece) => piece.text).join('');
  return { text, pattern, shown: showPieces(pieces) };
}

type PartContext = { visitor: WordVisitor; expand: (what: string) => void; quoted: boolean };

function readPart(part: ShellNode, pieces: Piece[], context: PartContext): void {
  const type = nodeType(part);
  const value = part.Value as string;
  switch (type) {
    case 'Lit':
      if (context.quoted) pieces.push({ text: unescapeDoubleQuoted(value), active: false });
      else unescapeUnquoted(value, pieces.length === 0, pieces);
      return;
    case 'SglQuoted':
      pieces.push({ text: part.Dollar === true ? decodeAnsiC(value) : value, active: false });
      return;
    case 'DblQuoted':
      for (const inner of part.Parts as ShellNode[]) readPart(inner, pieces, { ...context, quoted: true });
      return;
    case 'CmdSubst':
      context.expand('a command substitution');
      context.visitor.statements(part.Stmts as ShellStatement[]);
      return;
    case 'ProcSubst':
      context.expand('a process substitution');
      context.visitor.statements(part.Stmts as ShellStatement[]);
      return;
    case 'ArithmExp':
      context.expand('an arithmetic expansion');
      context.visitor.arithmetic(part.X as ShellNode | null);
      return;
    case 'ParamExp':
      context.expand('a parameter expansion');
      readParameterExpansion(part, context.visitor);
      return;
    case 'ExtGlob':
      context.expand('an extended pattern');
      return;
    default:
      context.expand(`a ${type}`);
      context.visitor.unknown(`a word part the reader does not know (${type})`);
  }
}

/** The words and arithmetic inside `${...}`: defaults (`${x:-$(cmd)}`), replacements, indices, slices. */
function readParameterExpansion(part: ShellNode, visitor: WordVisitor): void {
  visitor.arithmetic(part.Index as ShellNode | null);
  const slice = part.Slice as { Offset: ShellNode | null; Length: ShellNode | null } | null;
  if (slice !== null) {
    visitor.arithmetic(slice.Offset);
    visitor.arithmetic(slice.Length);
  }
  const replace = part.Repl as { Orig: ShellWord | null; With: ShellWord | null } | null;
  const expansion = part.Exp as { Word: ShellWord | null } | null;
  for (const word of [replace?.Orig, replace?.With, expansion?.Word]) {
    if (word !== null && word !== undefined) readWord(word, visitor);
  }
}

/** An unquoted literal: a backslash quotes the next character; pattern characters and a leading `~` stay active. */
function unescapeUnquoted(value: string, atWordStart: boolean, pieces: Piece[]): void {
  for (let index = 0; index < value.length; index++) {
    const char = value[index]!;
    if (char === '\\' && index + 1 < value.length) {
      pieces.push({ text: value[++index]!, active: false });
    } else {
      const tilde = char === '~' && index === 0 && atWordStart;
      pieces.push({ text: char, active: tilde || patternCharacters.has(char) });
    }
  }
}

/** Inside double quotes a backslash only quotes `$`, a backquote, `"`, `\` and a newline (which it removes). */
function unescapeDoubleQuoted(value: string): string {
  return value.replace(/\\([$`"\\\n])/g, (_, char: string) => (char === '\n' ? '' : char));
}

const simpleEscapes: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** The text of `$'...'` as bash decodes it; a NUL ends the string, as it ends a C string. */
export function decodeAnsiC(raw: string): string {
  const decoded = raw.replace(
    /\\(?:([abeEfnrtv\\'"?])|([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|c(.))/gs,
    (
      whole,
      simple?: string,
      octal?: string,
      hex?: string,
      short?: string,
      long?: string,
      control?: string,
    ) => {
      if (simple !== undefined) return simpleEscapes[simple]!;
      const code = octal ?? hex ?? short ?? long;
      if (code !== undefined) {
        const point = Number.parseInt(code, octal !== undefined ? 8 : 16) & (octal !== undefined ? 0xff : ~0);
        return point > 0x10ffff ? whole : String.fromCodePoint(point);
      }
      return String.fromCharCode(control!.toUpperCase().charCodeAt(0) ^ 0x40);
    },
  );
  const nul = decoded.indexOf('\0');
  return nul === -1 ? decoded : decoded.slice(0, nul);
}

function showPieces(pieces: Piece[]): string {
  if (pieces.every((piece) => piece.text === '')) return "''";
  let shown = '';
  let literal = '';
  const flush = () => {
    if (literal !== '')
      shown += needsQuotes.test(literal) ? `'${literal.replaceAll("'", `'\\''`)}'` : literal;
    literal = '';
  };
  for (const piece of pieces) {
    if (piece.active) {
      flush();
      shown += piece.text;
    } else literal += piece.text;
  }
  flush();
  return shown;
}
