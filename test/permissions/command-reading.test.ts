import { describe, expect, it } from 'vitest';
import { readCommandLine } from '../../src/permissions/command-reading.ts';
import { prefixRuleFor } from '../../src/permissions/command-rules.ts';
import { parseBash, redirectOperators } from '../../src/permissions/shell-syntax.ts';
import { decodeAnsiC } from '../../src/permissions/shell-word.ts';
import { runScript } from '../support/child-run.ts';

/** A reading in short: each command as rules see it, where it stands, and what is unsure. */
function summary(line: string) {
  const reading = readCommandLine(line, '/workspace');
  return {
    commands: reading.commands.map((command) => ({
      shown: command.words.map((word) => word.shown).join(' '),
      at: command.top ? 'top' : (command.via ?? 'inside'),
    })),
    unsure: reading.unsure,
    notPlain: reading.notPlain,
  };
}

describe('readCommandLine', () => {
  it('finds every simple command, top-level or inside, with the wrapper that runs it', () => {
    expect(
      summary('LC_ALL=C sudo -u root xargs -0 rm -f < list && echo "$(git rev-parse HEAD)" # \''),
    ).toEqual({
      commands: [
        { shown: 'sudo -u root xargs -0 rm -f', at: 'top' },
        { shown: 'xargs -0 rm -f', at: 'sudo' },
        { shown: 'rm -f', at: 'xargs' },
        { shown: 'git rev-parse HEAD', at: 'inside' },
        { shown: 'echo "$(git rev-parse HEAD)"', at: 'top' },
      ],
      unsure: [],
      notPlain: undefined,
    });
    expect(summary("bash -c 'cd x && make' | tee log")).toEqual({
      commands: [
        { shown: "bash -c 'cd x && make'", at: 'top' },
        { shown: 'cd x', at: 'inside' },
        { shown: 'make', at: 'inside' },
        { shown: 'tee log', at: 'top' },
      ],
      unsure: [],
      notPlain: undefined,
    });
  });

  it('shows words after quote removal, quoting only what a rule could misread', () => {
    expect(summary(`"npm test" ech'o' a\\ b $'\\x41\\n' '*' * ''`).commands).toEqual([
      { shown: "'npm test' echo 'a b' 'A\n' '*' * ''", at: 'top' },
    ]);
  });

  it('says why it is unsure, and why a line is not plain', () => {
    expect(summary('eval "$X"; $Y z; f() { :; }')).toEqual({
      commands: [
        { shown: 'eval "$X"', at: 'top' },
        { shown: '$Y z', at: 'top' },
        { shown: ':', at: 'inside' },
      ],
      unsure: [
        'eval runs its arguments as a command line',
        'the program name comes from a parameter expansion',
        'it defines a function (f)',
      ],
      notPlain: 'a compound command (FuncDecl)',
    });
    expect(summary("echo 'open")).toEqual({
      commands: [],
      unsure: ["it is not valid bash (1:6: reached EOF without closing quote ')"],
      notPlain: 'it does not parse',
    });
  });

  it('loads the parser without changing the process (GopherJS sets Error.stackTraceLimit and require)', async () => {
    const run = await runScript('test/fixtures/shell-parser-globals.ts');
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({
      before: { stackTraceLimit: 10, require: false },
      after: { stackTraceLimit: 10, require: false },
      parsed: true,
    });
  });

  it("names each of mvdan/sh's redirection operators as the pinned version numbers them", () => {
    const operators = ['>', '>>', '<', '<>', '<&', '>&', '>|', '<<', '<<-', '<<<', '&>', '&>>'];
    const read = operators.map((operator) => {
      const parsed = parseBash(
        operator.startsWith('<<') && operator !== '<<<' ? `a ${operator}E\nE` : `a ${operator} 1`,
      );
      if (!('file' in parsed)) return parsed.error;
      return redirectOperators[parsed.file.Stmts[0]!.Redirs[0]!.Op];
    });
    expect(read).toEqual(operators);
  });

  it('decodes ANSI-C strings as bash does', () => {
    expect([
      decodeAnsiC('\\x72m'),
      decodeAnsiC("\\'"),
      decodeAnsiC('\\101\\u00e9\\U0001F600'),
      decodeAnsiC('a\\tb\\cAc'),
      decodeAnsiC('cut\\0here'),
      decodeAnsiC('\\q'),
    ]).toEqual(['rm', "'", 'A\u00e9\u{1F600}', 'a\tb\x01c', 'cut', '\\q']);
  });
});

describe('prefixRuleFor', () => {
  it('offers the first command as bash reads it, only when it covers the line, never for one not plain', () => {
    const offered = [
      'npm test -- --watch',
      '"npm" test',
      '# a comment\ngit status && git status --short',
      'git status && rm -rf x',
      'cd src && npm test',
      'ls -la src',
      'cat ./a.txt',
      './scripts/check.sh --fast',
      '$(evil)',
      'LC_ALL=C make',
      'sudo rm -rf /',
      "bash -c 'ls'",
      'eval ls',
      '"my tool" run',
      "echo 'open",
    ].map((command) => prefixRuleFor('bash', command));
    expect(offered).toEqual([
      'bash(npm test:*)',
      'bash(npm test:*)',
      'bash(git status:*)',
      undefined,
      undefined,
      'bash(ls:*)',
      'bash(cat:*)',
      'bash(./scripts/check.sh:*)',
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
