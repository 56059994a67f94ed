// Folders the agent may read and run from but never write: a loaded skill's folder. write_file and
// edit_file refuse them outright; for `bash`, whose effects no reading of the text can fully know, a line
// that writes into one as far as its text tells (an output redirection there, a program that writes files
// given a path there, or one run after `cd` there) is put to a person: it asks, whatever the mode or an
// allow rule would say. A program that writes on its own (a script that saves files) is not seen.
import { homedir } from 'node:os';
import path from 'node:path';
import type { CommandReading, SimpleCommand } from './command-reading.ts';
import { realPath } from './redirects.ts';
import type { WordReading } from './shell-word.ts';
import { programName } from './wrappers.ts';

// Programs that change the files named by (any of) their arguments.
const writesEveryArgument = new Set([
  'rm',
  'rmdir',
  'unlink',
  'mv',
  'touch',
  'mkdir',
  'tee',
  'chmod',
  'chown',
  'chgrp',
  'truncate',
  'shred',
  'patch',
]);
// Of those, the programs that change a folder's whole tree when given the folder or one above it.
const changesTrees = new Set(['rm', 'rmdir', 'mv', 'chmod', 'chown', 'chgrp', 'shred']);
// Programs that write only to their last argument (the destination).
const writesLastArgument = new Set(['cp', 'ln', 'install', 'rsync', 'scp']);
// Programs that write the files they are given only with an in-place flag.
const editsInPlace = new Set(['sed', 'perl']);
const directoryChangers = new Set(['cd', 'pushd']);

/**
 * Why a command line writes into one of `folders` (real paths), as far as its text tells, or undefined.
 * `cwd` is where it runs. Expansions decided at run time (`$DIR`) are not followed.
 */
export function writeIntoReadOnlyFolder(
  reading: CommandReading,
  folders: readonly string[],
  cwd: string | undefined,
): string | undefined {
  if (folders.length === 0) return undefined;
  const base = cwd ?? process.cwd();
  const inside = (text: string) => folderHolding(folders, base, text);
  // After `cd <folder>` a relative path may be anywhere in it.
  const enteredFolder = reading.commands
    .filter((command) => directoryChangers.has(command.words[0]?.text ?? ''))
    .map((command) => command.words.slice(1).find((word) => !word.text?.startsWith('-'))?.text)
    .map((target) => (target === undefined ? undefined : inside(target)))
    .find((folder) => folder !== undefined);
  const under = (word: WordReading): string | undefined =>
    word.text === undefined ? undefined : folderBelow(folders, base, word.text, enteredFolder);
  const targetIn = (word: WordReading): string | undefined => {
    if (word.text === undefined) return undefined;
    if (enteredFolder !== undefined && !path.isAbsolute(word.text) && !word.text.startsWith('~'))
      return enteredFolder;
    return inside(word.text);
  };
  for (const target of reading.outputTargets) {
    const folder = targetIn(target);
    if (folder !== undefined) return `a redirection writes into ${folder}, a skill's read-only folder`;
  }
  for (const command of reading.commands) {
    const program = programName(command.words[0]?.text ?? '');
    for (const word of writtenWords(command)) {
      // `rm -rf ~/.claude` or `rm -rf /tmp/*` takes the folder with it.
      const folder = targetIn(word) ?? (changesTrees.has(program) ? under(word) : undefined);
      if (folder !== undefined) return `${program} writes into ${folder}, a skill's read-only folder`;
    }
  }
  return undefined;
}

/** The words of a command that name files it writes. */
function writtenWords(command: SimpleCommand): WordReading[] {
  const [program, ...rest] = command.words;
  const name = program?.text === undefined ? undefined : programName(program.text);
  if (name === undefined) return [];
  const operands = rest.filter((word) => !(word.text ?? '').startsWith('-'));
  if (writesEveryArgument.has(name)) return operands;
  if (writesLastArgument.has(name)) return operands.slice(-1);
  if (editsInPlace.has(name) && rest.some((word) => /^-[a-zA-Z]*i/.test(word.text ?? ''))) return operands;
  if (name === 'dd')
    return rest
      .filter((word) => word.text?.startsWith('of='))
      .map((word) => ({ ...word, text: word.text!.slice(3) }));
  return [];
}

/** The folder of `folders` that `text` (a path, relative to `base`) lies in, lexically or once resolved. */
function folderHolding(folders: readonly string[], base: string, text: string): string | undefined {
  const expanded =
    text === '~' || text.startsWith('~/') ? path.join(process.env.HOME || homedir(), text.slice(1)) : text;
  const lexical = path.resolve(base, expanded);
  const real = realPath(lexical);
  return folders.find((folder) => within(folder, lexical) || (real !== undefined && within(folder, real)));
}

/**
 * The folder of `folders` that lies below the path `text` names (for a pattern, the part before its first
 * wildcard); after `cd` into a folder a relative path is not followed (`rm -rf ..` is not read).
 */
function folderBelow(
  folders: readonly string[],
  base: string,
  text: string,
  entered: string | undefined,
): string | undefined {
  const fixed = text.split(/[*?[{]/)[0]!;
  if (entered !== undefined && !path.isAbsolute(fixed)) return entered;
  const expanded =
    fixed === '~' || fixed.startsWith('~/')
      ? path.join(process.env.HOME || homedir(), fixed.slice(1))
      : fixed;
  const lexical = path.resolve(base, expanded === '' ? '.' : expanded);
  const real = realPath(lexical) ?? lexical;
  return folders.find((folder) => within(lexical, folder) || within(real, folder));
}

function within(folder: string, candidate: string): boolean {
  const relative = path.relative(folder, candidate);
  return (
    relative === '' ||
    (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative))
  );
}
