import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { nodeType, redirectOperators, type ShellRedirect } from './shell-syntax.ts';
import { readWord, type WordReading, type WordVisitor } from './shell-word.ts';

/** Files any command may open: they hold nothing and lead nowhere. */
const harmlessFiles = new Set(['/dev/null', '/dev/stdin', '/dev/stdout', '/dev/stderr']);

/** Where the redirections of one command may lead: files inside `cwd`, unless the line changes directory. */
export type RedirectScope = { cwd: string | undefined; changesDirectory: boolean };

/**
 * Why a redirection keeps an allow rule from covering its command, or `undefined` when it may stay:
 * `/dev/null`, a file descriptor (`2>&1`, `>&-`), a file that stays inside the workspace (symbolic links
 * followed), and here-documents or here-strings that expand nothing.
 */
export function redirectProblem(
  redirect: ShellRedirect,
  scope: RedirectScope,
  visitor: WordVisitor,
): string | undefined {
  const op = redirectOperators[redirect.Op];
  if (op === undefined) return 'a redirection the reader does not know';
  if (op === '<<' || op === '<<-') {
    const body = redirect.Hdoc?.Parts ?? [];
    return body.every((part) => nodeType(part) === 'Lit') ? undefined : 'a here-document that expands';
  }
  const target = redirect.Word === null ? undefined : readWord(redirect.Word, visitor);
  if (target?.text === undefined) return `a redirection to ${target?.expansion ?? 'nothing'}`;
  if (op === '<<<') return undefined;
  // `>&word` and `<&word` duplicate a descriptor when the word is one; `>&file` writes both outputs to file.
  if ((op === '>&' || op === '<&') && /^([0-9]+-?|-)$/.test(target.text)) return undefined;
  if (target.pattern) return `a redirection to a pattern (${target.shown})`;
  if (harmlessFiles.has(target.text)) return undefined;
  if (scope.cwd === undefined) return `a redirection to a file (${target.shown})`;
  if (scope.changesDirectory && !path.isAbsolute(target.text)) {
    return `a redirection to ${target.shown} after the line changes directory`;
  }
  return insideWorkspace(scope.cwd, target.text)
    ? undefined
    : `a redirection outside the workspace (${target.shown})`;
}

const writeOperators = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&']);

/**
 * The file a redirection writes (`> out.txt`, `>> log`, `&> all`), as bash reads the word; `undefined` for
 * one that writes no file (`<`, here-documents, `2>&1`, `/dev/null`). Deny rules on paths read these.
 */
export function writtenFile(redirect: ShellRedirect, visitor: WordVisitor): WordReading | undefined {
  const op = redirectOperators[redirect.Op];
  if (op === undefined || !writeOperators.has(op) || redirect.Word === null) return undefined;
  const target = readWord(redirect.Word, visitor);
  if (op === '>&' && target.text !== undefined && /^([0-9]+-?|-)$/.test(target.text)) return undefined;
  if (target.text !== undefined && harmlessFiles.has(target.text)) return undefined;
  return target;
}

/**
 * Whether `file`, resolved against `cwd` with every symbolic link followed, stays inside `cwd`. A `..` never
 * does: after a symbolic link to a folder, `..` is that folder's parent, which no reading of the text can know.
 */
function insideWorkspace(cwd: string, file: string): boolean {
  if (file.split('/').includes('..')) return false;
  const root = realPath(cwd);
  const target = realPath(path.join(path.isAbsolute(file) ? '/' : cwd, file));
  if (root === undefined || target === undefined) return false;
  return target.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** The real path of `file`: its deepest existing part resolved, the rest appended (it may not exist yet). */
export function realPath(file: string): string | undefined {
  let existing = file;
  const rest: string[] = [];
  while (lstatSync(existing, { throwIfNoEntry: false }) === undefined) {
    const parent = path.dirname(existing);
    if (parent === existing) return undefined;
    rest.unshift(path.basename(existing));
    existing = parent;
  }
  try {
    return path.join(realpathSync(existing), ...rest);
  } catch {
    // A dangling symbolic link (writing through it creates its target, wherever that is) or a folder that
    // cannot be read: nothing below it is known to be inside.
    return undefined;
  }
}
