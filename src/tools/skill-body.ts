// What a loaded skill tells the model, rendered as Claude Code renders a SKILL.md: the front matter left
// out, `${CLAUDE_SKILL_DIR}`, `${CLAUDE_SESSION_ID}`, `${CLAUDE_PROJECT_DIR}` and the argument placeholders
// substituted (skills
// [current], "Available string substitutions"), and the base folder named on the first line.

/** SKILL.md without its front matter (the part between the first two `---` lines). */
export function skillBody(text: string): string {
  const match = /^\uFEFF?---[ \t]*\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  return match ? text.slice(match[0].length) : text.replace(/^\uFEFF/, '');
}

export type SkillRendering = {
  /** The skill folder as the model is told it. */
  folder: string;
  /** What the call passed as `args`, if anything. */
  args: string | undefined;
  /** The names of the front matter's `arguments` (`$name` placeholders), in order. */
  argumentNames: readonly string[];
  sessionId: string | undefined;
  /** The workspace root, for `${CLAUDE_PROJECT_DIR}`. */
  projectDir?: string;
};

/**
 * The body with its placeholders filled: `${CLAUDE_SKILL_DIR}` is the folder, `${CLAUDE_PROJECT_DIR}` the
 * workspace; `$ARGUMENTS` the whole
 * argument string; `$ARGUMENTS[N]` and `$N` the N-th argument (0-based, split as a shell splits words, a
 * missing one left as written); `$name` the argument at that name's position. Arguments given to a body
 * with no argument placeholder are appended as `ARGUMENTS: <args>`, as Claude Code does.
 */
export function renderSkillBody(body: string, rendering: SkillRendering): string {
  const { folder, args, argumentNames, sessionId, projectDir } = rendering;
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code's placeholder, written as skills write it
  let text = body.replaceAll('${CLAUDE_SKILL_DIR}', folder);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: as above
  if (sessionId !== undefined) text = text.replaceAll('${CLAUDE_SESSION_ID}', sessionId);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: as above
  if (projectDir !== undefined) text = text.replaceAll('${CLAUDE_PROJECT_DIR}', projectDir);
  const words = splitArguments(args ?? '');
  let placeholders = 0;
  const named = argumentNames.filter((name) => /^[A-Za-z_][A-Za-z0-9_-]*$/.test(name));
  // The third group is always there (never matching without names), so the replacer's arguments line up.
  const names = named.length > 0 ? named.map(escapeRegExp).join('|') : '(?!)';
  const namePattern = `|\\$(${names})(?![A-Za-z0-9_-])`;
  const pattern = new RegExp(
    `\\$ARGUMENTS\\[(\\d+)\\]|\\$ARGUMENTS(?![A-Za-z0-9_])|\\$(\\d+)${namePattern}`,
    'g',
  );
  text = text.replace(
    pattern,
    (match, indexed: string | undefined, positional: string | undefined, name: string | undefined) => {
      placeholders++;
      const index = indexed ?? positional;
      if (index !== undefined) return words[Number(index)] ?? match;
      if (name !== undefined) return words[named.indexOf(name)] ?? match;
      return args ?? '';
    },
  );
  if (placeholders === 0 && args !== undefined && args.trim() !== '')
    text = `${text.trimEnd()}\n\nARGUMENTS: ${args}`;
  return text;
}

/** The names an `arguments` front matter value declares: `[a, b]`, `a b`, or a YAML list's lines. */
export function argumentNamesOf(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .replace(/^\[|\]$/g, '')
    .split(/[\s,]+/)
    .map((name) => name.replace(/^-$/, '').replace(/^["']|["']$/g, ''))
    .filter((name) => name !== '');
}

/** Words of an argument string as a shell splits them: whitespace apart, quotes grouping and removed. */
export function splitArguments(args: string): string[] {
  const words: string[] = [];
  let current = '';
  let started = false;
  let quote: '"' | "'" | undefined;
  for (let index = 0; index < args.length; index++) {
    const char = args[index]!;
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      else if (char === '\\' && quote === '"' && /["\\$`]/.test(args[index + 1] ?? ''))
        current += args[++index];
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      started = true;
    } else if (char === '\\' && index + 1 < args.length) {
      current += args[++index];
      started = true;
    } else if (/\s/.test(char)) {
      if (started) words.push(current);
      current = '';
      started = false;
    } else {
      current += char;
      started = true;
    }
  }
  if (started) words.push(current);
  return words;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
