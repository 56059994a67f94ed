// The bash grammar permission rules read commands with: mvdan/sh's parser (the one behind shfmt), compiled
// to JavaScript by GopherJS and published as `mvdan-sh`. It parses synchronously, which the permission gate's
// contract needs (decide is synchronous), and knows comments, here-documents, ANSI-C quoting, process
// substitution and the rest of bash 5. It is loaded on the first command a rule reads (about 110 ms, 1.5 MB
// of JavaScript), not when agentchart starts.
import { createRequire } from 'node:module';

/** The parts of mvdan/sh's syntax tree that the command reader looks at (field names as in Go). */
export type ShellNode = { readonly [field: string]: unknown };

export type ShellFile = ShellNode & { Stmts: ShellStatement[] };

export type ShellStatement = ShellNode & {
  Cmd: ShellNode | null;
  Redirs: ShellRedirect[];
  Negated: boolean;
  Background: boolean;
  Coprocess: boolean;
};

export type ShellWord = ShellNode & { Parts: ShellNode[] };

export type ShellRedirect = ShellNode & {
  Op: number;
  N: (ShellNode & { Value: string }) | null;
  Word: ShellWord | null;
  Hdoc: ShellWord | null;
};

type ParserModule = {
  syntax: {
    NewParser(...options: unknown[]): { Parse(text: string, name: string): ShellFile };
    KeepComments(enabled: boolean): unknown;
    Variant(variant: number): unknown;
    LangBash: number;
    NodeType(node: ShellNode): string;
    Walk(node: ShellNode, visit: (node: ShellNode | null) => boolean): void;
  };
};

let loaded: ParserModule | undefined;
let parser: ReturnType<ParserModule['syntax']['NewParser']> | undefined;

function shellModule(): ParserModule {
  if (loaded !== undefined) return loaded;
  // GopherJS's prelude raises Error.stackTraceLimit to Infinity and sets a global `require` for its own
  // use while loading; both are put back so the host's process is not changed by reading a command.
  const stackTraceLimit = Error.stackTraceLimit;
  const hadRequire = Object.hasOwn(globalThis, 'require');
  const globalRequire = (globalThis as { require?: unknown }).require;
  try {
    loaded = createRequire(import.meta.url)('mvdan-sh') as ParserModule;
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
    if (hadRequire) (globalThis as { require?: unknown }).require = globalRequire;
    else delete (globalThis as { require?: unknown }).require;
  }
  return loaded;
}

/** The syntax tree of a bash command line, or the parser's message when it is not valid bash. */
export function parseBash(text: string): { file: ShellFile } | { error: string } {
  const { syntax } = shellModule();
  parser ??= syntax.NewParser(syntax.KeepComments(false), syntax.Variant(syntax.LangBash));
  try {
    return { file: parser.Parse(text, '') };
  } catch (error) {
    // The parser throws Go errors, which carry their text in Error(), not in message.
    const goError = error as { Error?: () => string };
    return { error: typeof goError.Error === 'function' ? goError.Error() : String(error) };
  }
}

/** The Go type name of a node: `CallExpr`, `Lit`, `SglQuoted`, ... */
export function nodeType(node: ShellNode): string {
  return shellModule().syntax.NodeType(node);
}

/** Calls `visit` for `node` and every node below it, in source order. */
export function walkNodes(node: ShellNode, visit: (node: ShellNode) => void): void {
  shellModule().syntax.Walk(node, (each) => {
    if (each !== null) visit(each);
    return true;
  });
}

/** mvdan/sh's redirection operators (RedirOperator in the pinned version; shell-syntax.test.ts checks each). */
export const redirectOperators: Readonly<Record<number, string>> = {
  54: '>',
  55: '>>',
  56: '<',
  57: '<>',
  58: '<&',
  59: '>&',
  60: '>|',
  61: '<<',
  62: '<<-',
  63: '<<<',
  64: '&>',
  65: '&>>',
};

/** mvdan/sh's list and pipeline operators (BinCmdOperator). */
export const binaryOperators: Readonly<Record<number, string>> = { 10: '&&', 11: '||', 12: '|', 13: '|&' };
