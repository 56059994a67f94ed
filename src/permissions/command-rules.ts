import type { CommandReading, SimpleCommand } from './command-reading.ts';
import { formatRule, matchesRule, namesTool, type ParsedRule } from './rules.ts';
import { programName } from './wrappers.ts';

/** A simple command as rules match it: its words as bash reads them, joined by one space. */
function shownWords(command: SimpleCommand, nameOnly: boolean): string {
  return command.words
    .map((word, index) =>
      index === 0 && nameOnly && word.text !== undefined ? programName(word.text) : word.shown,
    )
    .join(' ');
}

/**
 * The deny rule that covers a command line: a rule without a pattern, one that covers the line as written,
 * or one that covers any simple command anywhere in it — after assignments, inside groups, substitutions,
 * here-documents and `bash -c`, run through `sudo`, `xargs`, `find -exec` and the like — with the program
 * named as written (`/bin/rm`) or by its last path segment (`rm`).
 */
export function commandDenyRule(
  rules: readonly ParsedRule[],
  toolName: string,
  line: string,
  reading: CommandReading,
): ParsedRule | undefined {
  return rules.find((rule) => {
    const covers = (text: string) => matchesRule(rule, toolName, { command: text });
    if (covers(line.trim())) return true;
    return reading.commands.some(
      (command) =>
        command.words.length > 0 && (covers(shownWords(command, false)) || covers(shownWords(command, true))),
    );
  });
}

/**
 * Why a command of the line's plain list keeps every allow rule with a pattern from covering it, or
 * `undefined` when rules may look at it: it needs words only (no assignments in front), each fixed before it
 * runs (no expansion; a pattern such as `*.ts` only as an argument), and redirections that stay inside the
 * workspace.
 */
function allowProblem(command: SimpleCommand): string | undefined {
  const [program] = command.words;
  if (program === undefined) return 'a command with no program';
  if (command.assigns) return 'variable assignments before the program';
  const expanded = command.words.find((word) => word.text === undefined);
  if (expanded !== undefined) return expanded.expansion;
  if (program.pattern) return 'a program name bash expands';
  return command.redirectProblem;
}

/**
 * The allow rule that covers a command line: one without a pattern covers any line; one with a pattern only
 * a plain list or pipeline (`;`, `&&`, `||`, `|`, newlines) of simple commands that are each covered by
 * some allow rule (the last one found is named), when nothing in the line is unsure.
 */
export function commandAllowRule(
  rules: readonly ParsedRule[],
  toolName: string,
  reading: CommandReading,
): ParsedRule | undefined {
  const whole = rules.find((rule) => rule.pattern === undefined && namesTool(rule.tool, toolName));
  if (whole !== undefined) return whole;
  if (reading.notPlain !== undefined || reading.unsure.length > 0) return undefined;
  const top = reading.commands.filter((command) => command.top);
  if (top.length === 0 || top.some((command) => allowProblem(command) !== undefined)) return undefined;
  let last: ParsedRule | undefined;
  for (const command of top) {
    const shown = shownWords(command, false);
    last = rules.find(
      (rule) => rule.pattern !== undefined && matchesRule(rule, toolName, { command: shown }),
    );
    if (last === undefined) return undefined;
  }
  return last;
}

/**
 * Why a command line the reader is unsure about may not be allowed while deny rules guard its tool, or
 * `undefined` when none does: a deny rule that cannot tell whether the line runs what it names must not
 * be passed by an allow rule, a session allowance or a mode.
 */
export function unsureUnderDeny(
  rules: readonly ParsedRule[],
  toolName: string,
  reading: CommandReading,
): string | undefined {
  const guards = rules.filter((rule) => namesTool(rule.tool, toolName));
  if (guards.length === 0 || reading.unsure.length === 0) return undefined;
  return `cannot tell whether the command runs what ${guards.map(formatRule).join(', ')} denies: ${reading.unsure.join('; ')}`;
}
