// Path rules over bash: Claude Code's `Read(...)` deny and ask rules also cover the file commands it
// recognises in Bash (permissions, "Read and Edit paths": `cat`, `head`, `tail`, `sed`), and redirect
// targets (`>`, `>>`) are checked as writes against `Edit(...)` rules, so a copied `Read(./.env)` deny stops
// `cat .env` and an `Edit(./tsconfig.json)` deny stops `echo {} > tsconfig.json`. Arbitrary programs that
// open files are not covered (as in Claude Code).
import type { CommandReading } from './command-reading.ts';
import { matchesRule, namesTool, type ParsedRule } from './rules.ts';
import { programName } from './wrappers.ts';

/** Programs whose arguments (other than options) are files they read. */
const fileReaders = new Set(['cat', 'head', 'tail', 'sed', 'less', 'more', 'nl', 'tac']);

/** A rule's answer about the files a line's file commands read. */
export type FileReadFinding = { rule: ParsedRule } | { unsure: string } | undefined;

/**
 * The deny or ask rule (of those given) that covers a file a command of the line reads, or why that cannot be
 * told (an argument bash expands: `cat $F`, `cat .e*`) while such a rule guards reading; `undefined` when no
 * rule covers any of them.
 */
export function fileReadFinding(
  rules: readonly ParsedRule[],
  reading: CommandReading,
  cwd: string | undefined,
): FileReadFinding {
  // Path rules only: a bare `Read` deny keeps read_file away, not every `cat` of the workspace.
  const guards = rules.filter((rule) => rule.pattern !== undefined && namesTool(rule.tool, 'read_file'));
  if (guards.length === 0) return undefined;
  let unsure: string | undefined;
  for (const command of reading.commands) {
    const [program, ...args] = command.words;
    if (program?.text === undefined || !fileReaders.has(programName(program.text))) continue;
    for (const word of args) {
      if (word.text?.startsWith('-')) continue;
      if (word.text === undefined || word.pattern) {
        unsure ??= `cannot tell which file ${program.text} reads (${word.shown}) while ${guards.length} Read rule(s) guard reading`;
        continue;
      }
      const path = word.text;
      const rule = guards.find((each) => matchesRule(each, 'read_file', { path }, cwd));
      if (rule !== undefined) return { rule };
    }
  }
  return unsure === undefined ? undefined : { unsure };
}

/**
 * The deny or ask rule (of those given) that covers a file a redirection of the line writes (`Edit`, `Write`,
 * `write_file`, `edit_file` path rules, and `Read` path rules, which guard writing too), or why that cannot
 * be told: a target bash expands, one after the line changes directory, or a redirection the reader does
 * not resolve (inside a group or a substitution: it reads the targets of a plain list's commands only).
 */
export function fileWriteFinding(
  rules: readonly ParsedRule[],
  reading: CommandReading,
  line: string,
  cwd: string | undefined,
): FileReadFinding {
  const guards = rules.filter(
    (rule) =>
      rule.pattern !== undefined &&
      (rule.tool === 'Read' || namesTool(rule.tool, 'write_file') || namesTool(rule.tool, 'edit_file')),
  );
  if (guards.length === 0) return undefined;
  const guarded = (rule: ParsedRule, path: string) =>
    matchesRule(
      rule.tool === 'Read' ? { tool: 'Edit', pattern: rule.pattern } : rule,
      'write_file',
      { path },
      cwd,
    ) || matchesRule(rule, 'edit_file', { path }, cwd);
  let unsure: string | undefined;
  for (const command of reading.commands)
    for (const word of command.writes ?? []) {
      if (word.text === undefined || word.pattern || command.redirectProblem?.includes('changes directory')) {
        unsure ??= `cannot tell which file a redirection writes (${word.shown}) while path rules guard writing`;
        continue;
      }
      const path = word.text;
      const rule = guards.find((each) => guarded(each, path));
      if (rule !== undefined) return { rule };
    }
  if (unsure === undefined && reading.notPlain !== undefined && line.includes('>'))
    unsure = `cannot tell which files the line's redirections write (${reading.notPlain}) while path rules guard writing`;
  return unsure === undefined ? undefined : { unsure };
}
