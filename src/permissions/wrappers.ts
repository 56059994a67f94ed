import type { WordReading } from './shell-word.ts';

/** What a simple command runs besides itself, as far as its words tell. */
export type Inner =
  | { kind: 'command'; words: WordReading[]; via: string }
  | { kind: 'script'; text: string; via: string }
  | { kind: 'unsure'; reason: string };

type OptionTable = {
  /** Short options without an argument (`-p`), and long ones (`--preserve-status`). */
  flags: string;
  long?: readonly string[];
  /** Short options that take an argument (`-u root`, `-uroot`), and long ones (`--user`). */
  withArgument?: string;
  longWithArgument?: readonly string[];
  /** Options after which no other program runs (`command -v rm` only looks rm up). */
  noRun?: string;
  /** Words to skip after the options before the program: timeout's duration, env's NAME=VALUE. */
  skip?: 'one' | 'assignments';
  /** What runs when no program is named (xargs runs echo). */
  fallback?: string;
};

// Programs that run the program named in their arguments, with the options each takes (GNU coreutils,
// findutils, sudo and bash's builtins). An option not listed here makes the command unsure.
const wrappers: Readonly<Record<string, OptionTable>> = {
  command: { flags: 'p', noRun: 'vV' },
  builtin: { flags: '' },
  exec: { flags: 'cl', withArgument: 'a' },
  env: {
    flags: 'i0v',
    long: ['--ignore-environment', '--null', '--debug'],
    withArgument: 'uC',
    longWithArgument: ['--unset', '--chdir'],
    skip: 'assignments',
  },
  xargs: {
    flags: '0rtpxoil',
    long: ['--null', '--no-run-if-empty', '--verbose', '--interactive', '--exit', '--open-tty'],
    withArgument: 'ILnPsdEa',
    longWithArgument: [
      '--replace',
      '--max-lines',
      '--max-args',
      '--max-procs',
      '--max-chars',
      '--delimiter',
      '--eof',
      '--arg-file',
      '--process-slot-var',
    ],
    fallback: 'echo',
  },
  nohup: { flags: '' },
  nice: { flags: '0123456789', withArgument: 'n', longWithArgument: ['--adjustment'] },
  time: {
    flags: 'pvqa',
    long: ['--append', '--verbose', '--portability', '--quiet'],
    withArgument: 'fo',
    longWithArgument: ['--format', '--output'],
  },
  timeout: {
    flags: 'vpf',
    long: ['--verbose', '--preserve-status', '--foreground'],
    withArgument: 'sk',
    longWithArgument: ['--signal', '--kill-after'],
    skip: 'one',
  },
  sudo: { flags: 'AbEHkKnPS', withArgument: 'ughpCDRTUrt', longWithArgument: ['--user', '--group'] },
  doas: { flags: 'n', withArgument: 'uC' },
  stdbuf: { flags: '', withArgument: 'ioe', longWithArgument: ['--input', '--output', '--error'] },
  setsid: { flags: 'cfw', long: ['--ctty', '--fork', '--wait'] },
  ionice: { flags: 't', withArgument: 'cnpPu' },
  busybox: { flags: '' },
};

/** Shells that run a script given with `-c`, or otherwise one read from a file or from their input. */
const shells = new Set(['bash', 'sh', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'yash', 'rbash', 'posh']);
const shellOptionsWithArgument = new Set(['o', 'O']);

/** The last path segment of a program word: `/bin/rm` and `./rm` name `rm`. */
export function programName(text: string): string {
  return text.slice(text.lastIndexOf('/') + 1);
}

/** Whether a program runs programs named in its arguments (a wrapper, a shell, find), so its prefix covers them. */
export function runsOtherPrograms(name: string): boolean {
  return name === 'find' || shells.has(name) || Object.hasOwn(wrappers, name);
}

/** What `words` (a simple command, program first) runs inside itself, if anything. */
export function innerCommands(words: readonly WordReading[]): Inner[] {
  const program = words[0]?.text;
  if (program === undefined) return [];
  const name = programName(program);
  if (name === 'find') return findExecs(words);
  if (shells.has(name)) return [shellScript(name, words.slice(1))];
  const table = wrappers[name];
  return table === undefined ? [] : wrapped(name, table, words.slice(1));
}

function wrapped(name: string, table: OptionTable, args: readonly WordReading[]): Inner[] {
  let index = 0;
  let replace: string | undefined;
  while (index < args.length) {
    const word = args[index]!.text;
    if (word === undefined)
      return [{ kind: 'unsure', reason: `an option of ${name} comes from an expansion` }];
    if (word === '--') {
      index++;
      break;
    }
    if (!word.startsWith('-') || word === '-') break;
    const read = readOption(table, word, args[index + 1]?.text);
    if (read.kind === 'unknown') return [{ kind: 'unsure', reason: `cannot tell what ${name} ${word} runs` }];
    if (read.kind === 'no-run') return [];
    if (read.replaces !== undefined) replace = read.replaces;
    index += read.used;
  }
  if (table.skip === 'one') index++;
  if (table.skip === 'assignments') {
    while (index < args.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[index]!.text ?? '')) index++;
  }
  const rest = args.slice(index);
  if (rest.length === 0) {
    if (table.fallback === undefined) return [];
    const text = table.fallback;
    return [{ kind: 'command', words: [{ text, pattern: false, shown: text }], via: name }];
  }
  // xargs -I puts its input into the words: a program name, or any word of a program that runs others
  // (a script for sh -c), that holds the marker is not known.
  if (replace !== undefined) {
    const program = rest[0]!.text ?? '';
    const marked =
      program.includes(replace) ||
      (runsOtherPrograms(programName(program)) && rest.some((word) => word.text?.includes(replace)));
    if (marked) return [{ kind: 'unsure', reason: `${name} puts its input into the command it runs` }];
  }
  return [{ kind: 'command', words: rest, via: name }];
}

type OptionRead =
  | { kind: 'unknown' }
  | { kind: 'no-run' }
  | { kind: 'read'; used: number; replaces: string | undefined };

/** One option word of a wrapper: how many words it uses, and xargs's replace string when it names one. */
function readOption(table: OptionTable, word: string, next: string | undefined): OptionRead {
  if (word.startsWith('--')) {
    const [option, value] = word.split(/=(.*)/s) as [string, string | undefined];
    if (value === undefined && table.long?.includes(option))
      return { kind: 'read', used: 1, replaces: undefined };
    if (!table.longWithArgument?.includes(option)) return { kind: 'unknown' };
    const argument = value ?? next;
    const replaces = option === '--replace' ? (argument ?? '{}') : undefined;
    return { kind: 'read', used: value === undefined ? 2 : 1, replaces };
  }
  for (let index = 1; index < word.length; index++) {
    const char = word[index]!;
    if (table.noRun?.includes(char)) return { kind: 'no-run' };
    if (table.withArgument?.includes(char)) {
      const attached = word.slice(index + 1);
      const argument = attached !== '' ? attached : next;
      const replaces = char === 'I' ? argument : undefined;
      return { kind: 'read', used: attached !== '' ? 1 : 2, replaces };
    }
    // xargs -i is -I{} (its optional argument can only be attached, as in -iX).
    if (char === 'i' && table.fallback !== undefined) {
      return { kind: 'read', used: 1, replaces: word.slice(index + 1) || '{}' };
    }
    if (!table.flags.includes(char)) return { kind: 'unknown' };
  }
  return { kind: 'read', used: 1, replaces: undefined };
}

/** `bash -c 'script'` runs the script; `bash file` or a bare `bash` runs commands the line does not show. */
function shellScript(name: string, args: readonly WordReading[]): Inner {
  let command = false;
  let index = 0;
  for (; index < args.length; index++) {
    const word = args[index]!.text;
    if (word === undefined) return { kind: 'unsure', reason: `an option of ${name} comes from an expansion` };
    if (word === '--' || word === '-') {
      index++;
      break;
    }
    if (!/^[-+]/.test(word)) break;
    if (word.startsWith('--')) continue;
    if (word.includes('c') && word.startsWith('-')) command = true;
    if (word.includes('s')) return { kind: 'unsure', reason: `${name} -s reads commands from its input` };
    if ([...word.slice(1)].some((char) => shellOptionsWithArgument.has(char))) index++;
  }
  const script = args[index];
  if (script === undefined) return { kind: 'unsure', reason: `${name} reads commands from its input` };
  if (!command)
    return { kind: 'unsure', reason: `${name} runs the commands of a file the line does not show` };
  if (script.text === undefined || script.pattern) {
    return { kind: 'unsure', reason: `the script ${name} -c runs comes from an expansion` };
  }
  return { kind: 'script', text: script.text, via: `${name} -c` };
}

/** `find ... -exec rm {} ;` runs rm (and so do -execdir, -ok and -okdir). */
function findExecs(words: readonly WordReading[]): Inner[] {
  const inner: Inner[] = [];
  for (let index = 1; index < words.length; index++) {
    const action = words[index]!.text;
    if (action === undefined || !['-exec', '-execdir', '-ok', '-okdir'].includes(action)) continue;
    const start = index + 1;
    while (index + 1 < words.length && !['+', ';'].includes(words[index + 1]!.text ?? '')) index++;
    const command = words.slice(start, index + 1);
    if (command.length > 0) inner.push({ kind: 'command', words: command, via: `find ${action}` });
    index++;
  }
  return inner;
}
