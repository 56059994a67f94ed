/**
 * Prose broken into lines of at most `width` characters at spaces, so no word is split over two lines;
 * a word longer than a whole line is the one thing broken inside. `indent` starts every line after the
 * first. Spaces before the first word and runs of spaces inside a line are kept (they set choices apart);
 * spaces at a break are dropped.
 *
 * @example
 * wrapWords('[y] allow once  [n] deny', 12) // ['[y] allow', 'once  [n]', 'deny']
 */
export function wrapWords(text: string, width: number, indent = ''): string[] {
  const lines: string[] = [];
  let current = '';
  const room = () => width - (lines.length === 0 ? 0 : indent.length);
  const finish = () => {
    lines.push(lines.length === 0 ? current : indent + current);
    current = '';
  };
  // Words with the spaces that came before each.
  for (const [, gap = '', word = ''] of text.matchAll(/( *)(\S+)/g)) {
    // Spaces before the first word are the text's own indent; at a break they are dropped.
    const lead = lines.length === 0 ? gap : '';
    const joined = current === '' ? `${lead}${word}` : `${current}${gap}${word}`;
    if (joined.length <= room()) {
      current = joined;
      continue;
    }
    if (current !== '') finish();
    let rest = word;
    while (rest.length > room()) {
      current = rest.slice(0, Math.max(1, room()));
      rest = rest.slice(current.length);
      finish();
    }
    current = rest;
  }
  if (current !== '' || lines.length === 0) finish();
  return lines;
}

/**
 * A question's choices (`[y] allow once`, …) laid out in lines of at most `width` characters: as many
 * whole choices on a line as fit, two spaces apart; a choice that does not fit on a line of its own is
 * wrapped between words, its continuation indented under its text.
 */
export function wrapChoices(choices: readonly string[], width: number, indent = '  '): string[] {
  const lines: string[] = [];
  let current = '';
  for (const choice of choices) {
    const joined = current === '' ? `${indent}${choice}` : `${current}  ${choice}`;
    if (joined.length <= width) {
      current = joined;
      continue;
    }
    if (current !== '') lines.push(current);
    current = `${indent}${choice}`;
    if (current.length <= width) continue;
    lines.push(...wrapWords(current, width, `${indent}    `));
    current = '';
  }
  if (current !== '') lines.push(current);
  return lines;
}
