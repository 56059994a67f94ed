// The checks the doc test applies to code blocks: TypeScript type-checked against the package's published
// types (dist/*.d.ts, reached by the package's own name as a user's program reaches it), shell lines that
// run `agentchart` against the real command tree, JSON parsed.
import { join } from 'node:path';
import type { Command } from 'commander';
import ts from 'typescript';
import { buildProgram } from '../../src/cli/main.ts';
import type { CodeBlock } from './markdown-pages.ts';
import { repoRoot } from './markdown-pages.ts';

export type NamedBlock = { file: string; block: CodeBlock };

/** The compiler options of tsconfig.json, for programs a reader would write: unused names are fine. */
function readerOptions(): ts.CompilerOptions {
  const configPath = join(repoRoot, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, repoRoot, undefined, configPath);
  return { ...parsed.options, noEmit: true, noUnusedLocals: false, noUnusedParameters: false };
}

/**
 * Type-checks each block as a module of its own in a folder of this package (so `import … from
 * 'agentchart'` resolves through package.json's exports to dist/), and returns one line per problem:
 * `<file>:<line> TS<code>: <message>`.
 */
export function typeCheck(blocks: NamedBlock[]): string[] {
  const folder = join(repoRoot, '.doc-blocks');
  const files = new Map<string, NamedBlock>();
  for (const [index, named] of blocks.entries()) files.set(join(folder, `block-${index}.ts`), named);
  const options = readerOptions();
  const host = ts.createCompilerHost(options, true);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, language, onError, shouldCreate) => {
    const named = files.get(fileName);
    // `export {}` keeps a block without imports a module, so two blocks never share top-level names.
    if (named) return ts.createSourceFile(fileName, `${named.block.text}\nexport {};\n`, language, true);
    return getSourceFile(fileName, language, onError, shouldCreate);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => files.has(fileName) || fileExists(fileName);
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => {
    const named = files.get(fileName);
    return named ? named.block.text : readFile(fileName);
  };
  const directoryExists = host.directoryExists?.bind(host);
  host.directoryExists = (name) =>
    name === folder || (directoryExists?.(name) ?? ts.sys.directoryExists(name));
  const program = ts.createProgram({ rootNames: [...files.keys()], options, host });
  const problems: string[] = [];
  for (const [fileName, named] of files) {
    const source = program.getSourceFile(fileName)!;
    const diagnostics = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ];
    for (const diagnostic of diagnostics) {
      const { line } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
      problems.push(`${named.file}:${named.block.line + line} TS${diagnostic.code}: ${message}`);
    }
  }
  return problems;
}

/** Splits a shell line into words, keeping quoted text together and dropping the quotes. */
function words(line: string): string[] {
  const found: string[] = [];
  for (const match of line.matchAll(/'[^']*'|"(?:[^"\\]|\\.)*"|[^\s'"]+/g))
    found.push(match[0].replaceAll(/^['"]|['"]$/g, ''));
  return found;
}

/** The simple commands of a shell line: split at `;`, `&&`, `||`, `|`, `&`, `(`, `$(`, with wrappers dropped. */
function simpleCommands(line: string): string[][] {
  const withoutComment = line.replace(/(^|\s)#.*$/, '$1');
  return withoutComment
    .split(/&&|\|\||[;|&()]|\$\(/)
    .map((part) => {
      const list = words(part);
      while (list.length > 0 && /^(?:[A-Z_][A-Z0-9_]*=\S*|npx|sudo|time|do|then|else|\$)$/.test(list[0]!))
        list.shift();
      return list;
    })
    .filter((list) => list.length > 0);
}

/** The shell lines of a block: continuation lines joined; in `console` blocks only the `$ ` prompts. */
export function shellLines(block: CodeBlock): Array<{ text: string; line: number }> {
  const lines: Array<{ text: string; line: number }> = [];
  let pending: { text: string; line: number } | undefined;
  for (const [index, raw] of block.text.split('\n').entries()) {
    let text = raw;
    if (block.lang === 'console') {
      if (pending === undefined && !raw.startsWith('$ ')) continue;
      if (pending === undefined) text = raw.slice(2);
    }
    const joined = pending
      ? { text: `${pending.text} ${text.trim()}`, line: pending.line }
      : { text, line: block.line + index };
    if (joined.text.endsWith('\\')) pending = { text: joined.text.slice(0, -1), line: joined.line };
    else {
      pending = undefined;
      lines.push(joined);
    }
  }
  return lines;
}

/**
 * The commands of a synopsis block (```text synopsis): one per line, continued on indented lines, with
 * `[optional]` parts, `a|b` choices and `--workspace-mcp|-hooks` short forms, read as shell lines that
 * name every option they show.
 */
export function synopsisLines(block: CodeBlock): Array<{ text: string; line: number }> {
  const commands: Array<{ text: string; line: number }> = [];
  for (const [index, raw] of block.text.split('\n').entries()) {
    const command = raw.trim().split(/\s{2,}/)[0]!;
    if (/^\s/.test(raw) && commands.length > 0) commands.at(-1)!.text += ` ${command}`;
    else if (raw.startsWith('agentchart')) commands.push({ text: command, line: block.line + index });
  }
  return commands.map(({ text, line }) => ({
    text: text.split(/\s+/).flatMap(expandChoice).join(' '),
    line,
  }));
}

function expandChoice(token: string): string[] {
  const word = token.replaceAll(/[[\]…]/g, '');
  if (word === '|' || word === '') return [];
  if (!word.includes('|')) return [word];
  const [first, ...rest] = word.split('|') as [string, ...string[]];
  if (!first.startsWith('--') || !rest.every((part) => part.startsWith('-'))) return [first];
  const stem = first.slice(0, first.lastIndexOf('-'));
  return [first, ...rest.map((part) => `${stem}${part}`)];
}

/** The `agentchart` command tree: each command path (`run`, `mcp list`) with its long and short options. */
export function commandTree(): Map<string, Set<string>> {
  const silent = { write: () => true } as unknown as NodeJS.WritableStream;
  const program = buildProgram(
    { stdout: silent, stderr: silent, stdin: process.stdin, env: {}, cwd: repoRoot } as never,
    () => {},
  );
  const tree = new Map<string, Set<string>>();
  const visit = (command: Command, path: string[]) => {
    const flags = new Set(['--help', '-h']);
    for (const option of command.options) {
      if (option.long) flags.add(option.long);
      if (option.short) flags.add(option.short);
      if (option.negate && option.long) flags.add(option.long);
    }
    tree.set(path.join(' '), flags);
    for (const child of command.commands) visit(child, [...path, child.name()]);
  };
  visit(program, []);
  tree.get('')!.add('--version').add('-V');
  return tree;
}

/** What is wrong with the `agentchart` commands of one shell line (none when it names no `agentchart`). */
export function commandProblems(line: string, tree: Map<string, Set<string>>): string[] {
  const problems: string[] = [];
  for (const command of simpleCommands(line)) {
    if (command[0] !== 'agentchart' && !command[0]?.endsWith('/agentchart')) continue;
    const args = command.slice(1);
    // `agentchart` with options only is the interactive session.
    let path = args.length === 0 || args[0]!.startsWith('-') ? ['chat'] : [];
    let rest = args;
    while (rest.length > 0 && !rest[0]!.startsWith('-') && tree.has([...path, rest[0]!].join(' '))) {
      path = [...path, rest[0]!];
      rest = rest.slice(1);
    }
    if (path.length === 0) {
      problems.push(`agentchart has no command ${JSON.stringify(args[0])}`);
      continue;
    }
    const children = [...tree.keys()].filter((key) => key.startsWith(`${path.join(' ')} `));
    if (children.length > 0 && !rest.some((word) => word === '--help' || word === '-h'))
      problems.push(`agentchart ${path.join(' ')} needs one of: ${children.join(', ')}`);
    const flags = tree.get(path.join(' '))!;
    for (const word of rest) {
      const flag = /^(--[a-z][a-z0-9-]*|-[a-zA-Z])(?:=|$)/.exec(word)?.[1];
      if (flag && !flags.has(flag) && !tree.get('')!.has(flag))
        problems.push(`agentchart ${path.join(' ')} has no option ${flag}`);
    }
  }
  return problems;
}

/** A JSON block's parse error, or undefined. */
export function jsonProblem(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
