import { type CommandReading, hiddenRunner, readCommandLine, type SimpleCommand } from './command-reading.ts';
import {
  formatRule,
  matchesRule,
  namesTool,
  type ParsedRule,
  type PermissionRule,
  parseRule,
} from './rules.ts';
import { programName, runsOtherPrograms } from './wrappers.ts';

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

/**
 * The prefix rule a person is offered for a command ("allow this prefix"), read from the line's first
 * simple command as bash reads it: the program and, when the next word is a subcommand rather than an
 * option, a path or a quoted value, that word too — `npm test -- -u` gives `bash(npm test:*)`, `ls -la src`
 * gives `bash(ls:*)`. None is offered when the first command is not plain words (`$(evil)`, `X=1 make`) or
 * its program runs others (`sudo`, `bash -c`, `xargs`, `eval`), whose prefix would allow anything.
 * `decidePermission` requires every command of a line to be covered, so a rule that would not cover this
 * very line is not offered either (`cd src && npm test` offers none; `npm test && npm test -- -u` offers
 * `bash(npm test:*)`): a person who took it would be asked again for the same line.
 */
export function prefixRuleFor(toolName: string, command: string): PermissionRule | undefined {
  const reading = readCommandLine(command, undefined);
  const first = reading.commands.find((each) => each.top);
  const [program, next] = first?.words ?? [];
  if (first === undefined || first.assigns || program?.text === undefined) return undefined;
  if (program.pattern || program.shown !== program.text || runsOtherPrograms(programName(program.text))) {
    return undefined;
  }
  if (hiddenRunner(program.text) !== undefined) return undefined;
  const subcommand =
    next?.text !== undefined && !next.pattern && /^[A-Za-z][\w:.-]*$/.test(next.text) ? ` ${next.text}` : '';
  const rule = `${toolName}(${program.text}${subcommand}:*)`;
  return commandAllowRule([parseRule(rule)], toolName, reading) === undefined ? undefined : rule;
}
