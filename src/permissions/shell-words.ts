/** A command line cut at its control operators, for permission rules. */
export type SplitCommand = {
  /** The simple commands, trimmed, in order (`a && b | c` gives `a`, `b`, `c`). */
  commands: string[];
  /** Whether it runs commands inside others: `$(...)`, backquotes, `<(...)` or `>(...)`. */
  substitution: boolean;
};

/**
 * Splits a bash command line at `;`, `&&`, `||`, `|`, `|&`, `&`, newlines, parentheses and backquotes that
 * stand outside quotes. Quotes and backslashes are honoured; `&` in a redirection (`2>&1`, `&>f`) is not an
 * operator. This is a best-effort reading for permission rules, not a shell parser: rules are a guard
 * against mistakes, not a sandbox.
 */
export function splitCommand(command: string): SplitCommand {
  const commands: string[] = [];
  let current = '';
  let quote: "'" | '"' | undefined;
  let substitution = false;
  const cut = () => {
    if (current.trim() !== '') commands.push(current.trim());
    current = '';
  };
  for (let index = 0; index < command.length; index++) {
    const char = command[index]!;
    const next = command[index + 1];
    if (quote === "'") {
      if (char === "'") quote = undefined;
      current += char;
      continue;
    }
    if (char === '\\') {
      current += char + (next ?? '');
      index++;
      continue;
    }
    if (char === '`' || (char === '$' && next === '(') || ((char === '<' || char === '>') && next === '(')) {
      substitution = true;
    }
    if (quote === '"') {
      if (char === '"') quote = undefined;
      current += char;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      current += char;
      continue;
    }
    if (isOperator(command, index)) {
      cut();
      if ((char === '&' || char === '|') && (next === char || (char === '|' && next === '&'))) index++;
      continue;
    }
    current += char;
  }
  cut();
  return { commands, substitution };
}

function isOperator(command: string, index: number): boolean {
  const char = command[index];
  const before = command[index - 1];
  const after = command[index + 1];
  // Parentheses and backquotes cut too, so a deny rule also sees the commands inside a substitution.
  if (char === ';' || char === '\n' || char === '|' || char === '(' || char === ')' || char === '`')
    return true;
  // `&` after `>`/`<` or before `>` belongs to a redirection.
  if (char === '&') return before !== '>' && before !== '<' && after !== '>';
  return false;
}
