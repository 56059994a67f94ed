// The YAML front matter of a SKILL.md, read by a small strict parser: agentchart needs two string fields
// (`name`, `description`), so it reads the subset of YAML that Agent Skills files use — `key: value` lines
// with plain, single- or double-quoted scalars, block scalars (`|`, `>`) and indented blocks under keys it
// does not use (`metadata:`) — and refuses anything else with a message that says which line is wrong.

/** What a front matter gave, or what is wrong with it. */
export type FrontMatter = { fields: Record<string, string> } | { problem: string };

const keyLine = /^([A-Za-z0-9_-]+):(?:[ \t]+(.*))?$/;

/** Whether `text` begins with a front matter's opening `---` line (Claude Code's front matter is optional). */
export function startsWithFrontMatter(text: string): boolean {
  return /^\uFEFF?---[ \t]*(?:\r?\n|$)/.test(text);
}

/** Parses the front matter at the start of `text` (between `---` lines). */
export function parseFrontMatter(text: string): FrontMatter {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trimEnd() !== '---') return { problem: 'it does not begin with a front matter ("---" line)' };
  const end = lines.findIndex((line, index) => index > 0 && line.trimEnd() === '---');
  if (end === -1) return { problem: 'its front matter has no closing "---" line' };
  const fields: Record<string, string> = {};
  for (let index = 1; index < end; ) {
    const line = lines[index]!;
    if (line.trim() === '' || line.trimStart().startsWith('#')) {
      index++;
      continue;
    }
    const match = keyLine.exec(line.trimEnd());
    if (match === null) return { problem: `front matter line ${index + 1} is not "key: value": ${line}` };
    const [, key = '', raw = ''] = match;
    if (Object.hasOwn(fields, key)) return { problem: `front matter key "${key}" appears twice` };
    // The indented lines that follow belong to this key (a block scalar or a nested block).
    let next = index + 1;
    while (next < end && (lines[next]!.trim() === '' || /^[ \t]/.test(lines[next]!))) next++;
    const block = lines.slice(index + 1, next);
    const value = scalar(raw.trim(), block);
    if (typeof value === 'object') return { problem: `front matter key "${key}": ${value.problem}` };
    fields[key] = value;
    index = next;
  }
  return { fields };
}

/** One value: a quoted or plain scalar on the key's line, or a block scalar / nested block below it. */
function scalar(raw: string, block: string[]): string | { problem: string } {
  const content = block.filter((line) => line.trim() !== '');
  if (/^[|>](?:[+-]?[1-9]?|[1-9][+-])$/.test(raw)) {
    const indent = Math.min(...content.map((line) => line.length - line.trimStart().length));
    const texts = block.map((line) => line.slice(Math.min(indent, line.length)).trimEnd());
    while (texts.at(-1) === '') texts.pop();
    return raw.startsWith('|') ? texts.join('\n') : texts.join(' ').replace(/ {2,}/g, ' ').trim();
  }
  // A nested block (a map or list under a key agentchart does not read) is kept as its text.
  if (raw === '') return content.map((line) => line.trim()).join('\n');
  if (content.length > 0) {
    // A scalar folded over several lines (YAML joins the lines with one space), quoted or plain.
    const folded = [raw, ...content.map((line) => line.trim())].join(' ');
    return /^["']/.test(raw) ? quoted(folded) : folded;
  }
  return /^["']/.test(raw) ? quoted(raw) : raw.replace(/\s+#.*$/, '');
}

/** A single- or double-quoted scalar on one line (after folding). */
function quoted(raw: string): string | { problem: string } {
  if (raw.startsWith('"')) {
    if (!raw.endsWith('"') || raw.length < 2) return { problem: 'a double-quoted value is not closed' };
    try {
      return JSON.parse(raw) as string;
    } catch {
      return { problem: 'a double-quoted value has a bad escape' };
    }
  }
  if (raw.startsWith("'")) {
    if (!raw.endsWith("'") || raw.length < 2) return { problem: 'a single-quoted value is not closed' };
    return raw.slice(1, -1).replace(/''/g, "'");
  }
  return { problem: 'a quoted value is not closed' };
}
