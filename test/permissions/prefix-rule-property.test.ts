// The property behind prefix rules, checked against real bash: whatever command line `bash(probe:*)`
// allows runs no program but probe and writes nothing outside the workspace. Lines come from a grammar of
// the tricks that fooled the old splitter (quotes in comments, ANSI-C strings, here-documents, operators
// glued to words, substitutions, redirections, assignments, wrapped and disguised program names); each
// allowed line runs under `strace -f -e trace=execve` in a sandbox whose PATH holds only recording shims.
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { decidePermission } from '../../src/permissions/decide.ts';

const strace = '/usr/bin/strace';
const root = mkdtempSync(join(tmpdir(), 'agentchart-probe-'));
const box = join(root, 'box');
const shims = join(root, 'shims');
const outside = join(root, 'outside');
const records = join(root, 'records');
for (const folder of [box, shims, outside, records, join(box, 'sub')]) mkdirSync(folder);
symlinkSync(outside, join(box, 'escape'));
writeFileSync(join(box, 'in'), 'input\n');
// Every shim records that it ran; none reads its input, so a pipeline never waits on one.
for (const name of ['probe', 'touch', 'rm', 'cat', 'sh', 'bash', 'env']) {
  writeFileSync(join(shims, name), `#!/bin/sh\necho "${name} $*" >> ${join(records, 'shims.log')}\n`, {
    mode: 0o755,
  });
}
afterAll(() => rmSync(root, { recursive: true, force: true }));

// Each choice is weighted towards what the rule may allow, so that both sides of the rule are reached.
const pick = <T>(likely: readonly T[], unlikely: readonly T[]) =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...likely), weight: 4 },
    { arbitrary: fc.constantFrom(...unlikely), weight: 1 },
  );
const programs = pick(
  ['probe', "p''robe", '"probe"', '\\probe', "$'\\x70robe'"],
  [
    'touch',
    'rm',
    `${shims}/touch`,
    'command probe',
    'env touch',
    '$P',
    '{probe,touch}',
    'prob?',
    "$'\\x74ouch'",
  ],
);
const words = pick(
  ['a', '-x', '"q w"', "'s;t'", "$'\\''", "$'\\n'", '\\;', '#c', 'x#y', '*', '{a,b}', '~', "#'", '\\$HOME'],
  [
    '$HOME',
    '$(touch s)',
    '`touch b`',
    '<(touch p)',
    '$((1+2))',
    '"$(touch d)"',
    "'",
    '"',
    ';touch',
    '&&touch',
    '|touch',
    '\ntouch',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
    '${x:-$(touch e)}',
  ],
);
const redirections = pick(
  [
    '',
    '> out',
    '>> sub/out',
    '2>&1',
    '>/dev/null',
    "<<'EOF'\n$(touch h)\nEOF",
    "<<EOF\n'\nEOF",
    '<<< w',
    '< in',
  ],
  ['> ../planted', `> ${root}/absolute`, '> escape/planted', '>&../duplicated', '<<EOF\n$(touch h)\nEOF'],
);
const assignments = pick([''], ['A=1 ', 'PATH=. ']);
const command = fc
  .tuple(assignments, programs, fc.array(words, { maxLength: 3 }), redirections)
  .map(([assign, program, args, redirect]) => [`${assign}${program}`, ...args, redirect].join(' '));
const separators = pick(['; ', ' && ', ' || ', ' | ', '\n', " #'\n", ' # x\n'], [' & ', ' ']);
const line = fc
  .tuple(command, fc.array(fc.tuple(separators, command), { maxLength: 2 }), pick([''], ['{ ', '( ']))
  .map(([first, rest, group]) => {
    const body = first + rest.map(([separator, next]) => separator + next).join('');
    return group === '{ ' ? `{ ${body}; }` : group === '( ' ? `( ${body} )` : body;
  });

/** Runs a line with bash in the sandbox under strace; resolves with every program it executed. */
function runTraced(commandLine: string): Promise<string[]> {
  const trace = join(records, 'trace');
  rmSync(trace, { force: true });
  return new Promise((resolve, reject) => {
    const child = execFile(
      strace,
      ['-f', '-qq', '-e', 'trace=execve', '-e', 'signal=none', '-o', trace, '/bin/bash', '-c', commandLine],
      { cwd: box, env: { PATH: shims, HOME: box, P: 'touch' } },
      () => {
        // bash's own exit code does not matter (a shim or a redirection may fail); what ran does.
        const lines = readFileSync(trace, 'utf8').split('\n');
        const executed = lines.flatMap((entry) => /execve\("([^"]+)".*\) = 0$/.exec(entry)?.[1] ?? []);
        resolve(executed.slice(1));
      },
    );
    child.stdin?.end();
    child.on('error', reject);
  });
}

const bash = { name: 'bash', access: 'exec' as const };
const allowedUnderProbe = (commandLine: string) =>
  decidePermission({
    mode: 'default',
    allow: ['bash(probe:*)'],
    tool: bash,
    input: { command: commandLine },
    cwd: box,
  }).decision === 'allow';

describe('a prefix rule, against real bash', () => {
  it('sees what the trace sees: a line it does not allow runs another program', async () => {
    expect(existsSync(strace), 'install strace (apt-get install strace); .ci/run does').toBe(true);
    const line = "probe checking #'\ntouch pwned\n#'";
    expect(allowedUnderProbe(line)).toBe(false);
    expect(await runTraced(line)).toEqual([join(shims, 'probe'), join(shims, 'touch')]);
    expect(await runTraced('probe "q w" $\'\\n\' > out 2>&1')).toEqual([join(shims, 'probe')]);
  });

  it('allows no generated line that runs a program other than probe or writes outside the sandbox', async () => {
    let allowed = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(line, async (commandLine) => {
        if (!allowedUnderProbe(commandLine)) {
          refused++;
          return;
        }
        allowed++;
        const executed = await runTraced(commandLine);
        expect({
          commandLine,
          executed: executed.filter((program) => program !== join(shims, 'probe')),
        }).toEqual({
          commandLine,
          executed: [],
        });
        expect({ commandLine, root: readdirSync(root).sort(), outside: readdirSync(outside) }).toEqual({
          commandLine,
          root: ['box', 'outside', 'records', 'shims'],
          outside: [],
        });
      }),
      { numRuns: 400, seed: 25, endOnFailure: true },
    );
    // The grammar must reach both sides, or the property says nothing.
    expect(allowed).toBeGreaterThanOrEqual(40);
    expect(refused).toBeGreaterThanOrEqual(200);
  }, 120_000);
});
