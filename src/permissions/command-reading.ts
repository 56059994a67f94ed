import { type NestedReader, readArithmetic, readCompound } from './compound-commands.ts';
import { redirectProblem, writtenFile } from './redirects.ts';
import {
  binaryOperators,
  nodeType,
  parseBash,
  redirectOperators,
  type ShellNode,
  type ShellRedirect,
  type ShellStatement,
  type ShellWord,
} from './shell-syntax.ts';
import { readWord, type WordReading, type WordVisitor } from './shell-word.ts';
import { innerCommands, programName } from './wrappers.ts';

/** One simple command of a line: its words after quote removal, wherever in the line it stands. */
export type SimpleCommand = {
  words: WordReading[];
  /** Whether variable assignments stand before it (`LC_ALL=C rm`). */
  assigns: boolean;
  /** Whether it is a command of the line's plain list or pipeline, not inside anything or run by another. */
  top: boolean;
  /** The program or shell that runs it (`sudo`, `xargs`, `bash -c`, `find -exec`), when another does. */
  via?: string;
  /** Why its redirections keep allow rules from covering it (top commands only). */
  redirectProblem?: string;
  /** The files its redirections write (top commands only): `Edit(...)` deny and ask rules read them. */
  writes?: WordReading[];
};

/** What a command line runs, as far as the text tells. */
export type CommandReading = {
  /** Every simple command anywhere: in lists, groups, substitutions, here-documents, `bash -c`, wrappers. */
  commands: SimpleCommand[];
  /** Why the line may run something not in `commands` (`eval`, a program name from `$X`, a parse error). */
  unsure: string[];
  /** Why the line is not a plain list or pipeline of simple commands, which is all allow rules allow. */
  notPlain: string | undefined;
  /** The files output redirections anywhere in the line write to (`>`, `>>`, `&>`, `<>`, …), as read. */
  outputTargets: WordReading[];
};

// Redirections that open their file for writing (`>&word` does too when the word is not a descriptor).
const writingRedirects = new Set(['>', '>>', '<>', '>&', '>|', '&>', '&>>']);

// Builtins that run commands the line does not show, or change what a name runs.
const hiddenRunners: Readonly<Record<string, string>> = {
  eval: 'eval runs its arguments as a command line',
  source: 'source runs the commands of a file',
  '.': '. runs the commands of a file',
  alias: 'alias can make a name run another command',
  hash: 'hash can make a name run another program',
  enable: 'enable can load builtins from a file',
  trap: 'trap runs a command line later',
  fc: 'fc runs commands from the history',
};

// Variables that make the next shell or program run code of their own choosing.
const loaderVariables = new Set(['BASH_ENV', 'ENV', 'LD_PRELOAD', 'LD_AUDIT', 'PROMPT_COMMAND']);
/** Why a builtin of this name runs commands the line does not show, if it does. */
export function hiddenRunner(program: string): string | undefined {
  return hiddenRunners[programName(program)];
}

const directoryChangers = new Set(['cd', 'pushd', 'popd']);
const maximumDepth = 8;

/**
 * Reads a command line with a real bash grammar into what it runs. `cwd` is the folder it runs in, against
 * which redirections are resolved.
 */
export function readCommandLine(text: string, cwd: string | undefined): CommandReading {
  const reader = new LineReader();
  reader.script(text, undefined, 0);
  const top = reader.commands.filter((command) => command.top);
  const changesDirectory = top.some((command) => directoryChangers.has(command.words[0]?.text ?? ''));
  const quiet: WordVisitor = {
    statements: () => {},
    arithmetic: () => {},
    unknown: () => {},
    source: () => '',
  };
  for (const [command, redirects] of reader.redirects) {
    for (const redirect of redirects) {
      command.redirectProblem ??= redirectProblem(redirect, { cwd, changesDirectory }, quiet);
      const written = writtenFile(redirect, quiet);
      if (written !== undefined) command.writes = [...(command.writes ?? []), written];
    }
  }
  return {
    commands: reader.commands,
    unsure: reader.unsure,
    notPlain: reader.notPlain,
    outputTargets: reader.outputTargets,
  };
}

class LineReader implements NestedReader {
  readonly commands: SimpleCommand[] = [];
  readonly unsure: string[] = [];
  readonly redirects = new Map<SimpleCommand, ShellRedirect[]>();
  readonly outputTargets: WordReading[] = [];
  notPlain: string | undefined;
  private depth = 0;
  // The script being read, as UTF-8 bytes: the parser's offsets count bytes.
  private text = Buffer.alloc(0);

  /** Reads a whole script: the line itself (`via` undefined) or one a shell runs (`bash -c '...'`). */
  script(text: string, via: string | undefined, depth: number): void {
    const parsed = parseBash(text);
    if ('error' in parsed) {
      this.doubt(
        via === undefined
          ? `it is not valid bash (${parsed.error})`
          : `${via} runs text that is not valid bash`,
      );
      this.notPlain ??= 'it does not parse';
      return;
    }
    const saved = { depth: this.depth, text: this.text };
    this.depth = depth;
    this.text = Buffer.from(text);
    this.statementList(parsed.file.Stmts, via === undefined);
    this.depth = saved.depth;
    this.text = saved.text;
  }

  source(node: ShellNode): string {
    const offset = (position: unknown) => (position as { Offset(): number }).Offset();
    const range = node as unknown as { Pos(): unknown; End(): unknown };
    return this.text.subarray(offset(range.Pos()), offset(range.End())).toString();
  }

  statements(statements: ShellStatement[]): void {
    this.statementList(statements, false);
  }

  unknown(what: string): void {
    this.doubt(what);
    this.notPlain ??= what;
  }

  doubt(reason: string): void {
    if (!this.unsure.includes(reason)) this.unsure.push(reason);
  }

  private statementList(statements: readonly ShellStatement[], top: boolean): void {
    for (const statement of statements) this.statement(statement, top);
  }

  private statement(statement: ShellStatement, top: boolean): void {
    // Every field read on a GopherJS object builds a new wrapper (tens of microseconds), so each is read once.
    const redirects = statement.Redirs;
    const command = statement.Cmd;
    let plain = top;
    if (top && (statement.Background || statement.Negated || statement.Coprocess)) {
      this.notPlain ??= 'a command run in the background (&), negated (!) or as a coprocess';
      plain = false;
    }
    for (const redirect of redirects) {
      if (redirect.Word !== null) {
        const target = readWord(redirect.Word, this);
        const op = redirectOperators[redirect.Op];
        if (op !== undefined && writingRedirects.has(op) && !/^([0-9]+-?|-)$/.test(target.text ?? ''))
          this.outputTargets.push(target);
      }
      if (redirect.Hdoc !== null) readWord(redirect.Hdoc, this);
    }
    if (command === null) {
      if (top) this.notPlain ??= 'a line with redirections and no command';
      return;
    }
    const type = nodeType(command);
    if (type === 'CallExpr') {
      this.call(command, plain ? redirects : undefined);
      return;
    }
    if (type === 'BinaryCmd' && binaryOperators[command.Op as number] !== undefined) {
      if (plain && redirects.length > 0) this.notPlain ??= 'a redirection of a whole pipeline';
      this.statement(command.X as ShellStatement, plain);
      this.statement(command.Y as ShellStatement, plain);
      return;
    }
    if (top) this.notPlain ??= `a compound command (${type})`;
    readCompound(command, type, this);
  }

  /** A simple command: assignments, words, and what it runs through wrappers. */
  private call(call: ShellNode, topRedirects: ShellRedirect[] | undefined): void {
    const assigns = call.Assigns as ShellNode[];
    for (const assign of assigns) this.assign(assign);
    const words = (call.Args as ShellWord[]).map((word) => readWord(word, this));
    const command = this.simple(words, assigns.length > 0, topRedirects !== undefined, undefined);
    if (topRedirects !== undefined) this.redirects.set(command, topRedirects);
  }

  private simple(
    words: WordReading[],
    assigns: boolean,
    top: boolean,
    via: string | undefined,
  ): SimpleCommand {
    const command: SimpleCommand = { words, assigns, top, ...(via === undefined ? {} : { via }) };
    this.commands.push(command);
    const program = words[0];
    if (program === undefined) return command;
    if (program.text === undefined) {
      this.doubt(`the program name comes from ${program.expansion}`);
      return command;
    }
    if (program.pattern) {
      this.doubt(`the program name is a pattern bash expands (${program.shown})`);
      return command;
    }
    const hidden = hiddenRunner(program.text);
    if (hidden !== undefined) this.doubt(hidden);
    if (this.depth >= maximumDepth) {
      this.doubt('commands run by commands nested too deeply to follow');
      return command;
    }
    this.depth++;
    for (const inner of innerCommands(words)) {
      if (inner.kind === 'unsure') this.doubt(inner.reason);
      else if (inner.kind === 'command') this.simple(inner.words, false, false, inner.via);
      else this.script(inner.text, inner.via, this.depth);
    }
    this.depth--;
    return command;
  }

  assign(assign: ShellNode): void {
    const name = (assign.Name as { Value: string } | null)?.Value;
    if (name !== undefined && loaderVariables.has(name))
      this.doubt(`${name} makes a program run code it names`);
    if (assign.Value !== null) readWord(assign.Value as ShellWord, this);
    this.arithmetic(assign.Index as ShellNode | null);
    const array = assign.Array as { Elems: ShellNode[] } | null;
    for (const element of array?.Elems ?? []) {
      this.arithmetic(element.Index as ShellNode | null);
      if (element.Value !== null) readWord(element.Value as ShellWord, this);
    }
  }

  /** Arithmetic: read by `readArithmetic` (compound-commands.ts). */
  arithmetic(node: ShellNode | null): void {
    readArithmetic(node, this);
  }
}
