import { describe, expect, it } from 'vitest';
import { grepTool } from '../../src/tools/grep.ts';
import { findRipgrep } from '../../src/tools/grep-ripgrep.ts';
import { answer, context, refusal, result, useToolWorkspace } from './workspace-fixture.ts';

const fx = useToolWorkspace({
  '.gitignore': 'dist/\n',
  '.git/config': 'TODO in git\n',
  'node_modules/pkg/index.js': 'TODO in deps\n',
  'dist/out.js': 'TODO in build output\n',
  'blob.bin': Buffer.from('TODO\0binary'),
  'src/a.ts': 'const a = 1;\n// TODO: rename a\nexport { a };\n',
  'src/b.ts': ['one', 'two', 'TODO three', 'four', 'five', 'six', 'seven', 'TODO eight', 'nine'].join('\n'),
  'docs/notes.md': 'todo lower case\nfooBar and foobaz\n',
});

// Both engines must give the same output. When rg is missing, the "ripgrep" row still runs (the tool falls
// back to JavaScript) and its name says so, so nothing is skipped.
const rg = await findRipgrep();
const engines = [
  {
    name:
      rg === undefined
        ? 'ripgrep requested (rg not on PATH: runs the JavaScript fallback)'
        : `ripgrep (${rg})`,
    useRipgrep: true,
  },
  { name: 'JavaScript search (forced)', useRipgrep: false },
];

for (const { name, useRipgrep } of engines)
  describe(`grep with ${name}`, () => {
    const grep = async (
      input: Record<string, unknown>,
      limits: { maxLines?: number; maxBytes?: number } = {},
    ) => result(await grepTool({ useRipgrep, ...limits }).run(input as never, context(fx.root)));

    it('finds matches as path:line:text, sorted, skipping .git, node_modules, ignored and binary files', async () => {
      expect(await grep({ pattern: 'TODO' })).toEqual(
        answer('src/a.ts:2:// TODO: rename a\nsrc/b.ts:3:TODO three\nsrc/b.ts:8:TODO eight'),
      );
    });

    it('adds context lines as path-line-text with -- between groups', async () => {
      expect((await grep({ pattern: 'TODO', context: 1 })).content).toBe(
        [
          'src/a.ts-1-const a = 1;',
          'src/a.ts:2:// TODO: rename a',
          'src/a.ts-3-export { a };',
          '--',
          'src/b.ts-2-two',
          'src/b.ts:3:TODO three',
          'src/b.ts-4-four',
          '--',
          'src/b.ts-7-seven',
          'src/b.ts:8:TODO eight',
          'src/b.ts-9-nine',
        ].join('\n'),
      );
    });

    it('merges overlapping context windows', async () => {
      expect((await grep({ pattern: 'TODO', path: 'src/b.ts', context: 3 })).content.split('\n')).toEqual([
        'src/b.ts-1-one',
        'src/b.ts-2-two',
        'src/b.ts:3:TODO three',
        'src/b.ts-4-four',
        'src/b.ts-5-five',
        'src/b.ts-6-six',
        'src/b.ts-7-seven',
        'src/b.ts:8:TODO eight',
        'src/b.ts-9-nine',
      ]);
    });

    it('narrows by path and glob', async () => {
      expect((await grep({ pattern: 'TODO', path: 'src', glob: 'a.*' })).content).toBe(
        'src/a.ts:2:// TODO: rename a',
      );
      expect((await grep({ pattern: 'TODO', glob: '*.md' })).content).toBe(
        'No matches for "TODO" in the workspace.',
      );
      expect((await grep({ pattern: '(?i)todo', glob: '*.md' })).content).toBe(
        'docs/notes.md:1:todo lower case',
      );
    });

    it('searches an explicitly named file even when it is ignored', async () => {
      expect((await grep({ pattern: 'TODO', path: 'dist/out.js' })).content).toBe(
        'dist/out.js:1:TODO in build output',
      );
    });

    it('refuses look-around and backreferences, saying why, and reports invalid patterns', async () => {
      expect(await grep({ pattern: 'foo(?=Bar)' })).toEqual({
        content:
          'Invalid regular expression "foo(?=Bar)": error parsing regexp: invalid or unsupported Perl syntax: ' +
          '`(?=`. grep has no look-around ((?=, (?!, (?<=, (?<!): its engine matches in linear time, which ' +
          'look-around would break. Match the surrounding text itself, or search more broadly and read the hits.',
        isError: true,
      });
      expect(await grep({ pattern: '(o)\\1' })).toEqual({
        content:
          'Invalid regular expression "(o)\\\\1": error parsing regexp: invalid escape sequence: `\\1`. grep has ' +
          'no backreferences (\\1, \\k<name>): its engine matches in linear time, which backreferences would ' +
          'break. Search for a literal or a broader pattern and read the hits.',
        isError: true,
      });
      expect(await grep({ pattern: 'a(' })).toEqual({
        content:
          'Invalid regular expression "a(": error parsing regexp: missing closing ): `a(`. grep reads RE2 ' +
          'syntax, as ripgrep does: (?i) for case-insensitive, \\b, \\d, \\s, [[:alpha:]], \\p{L}.',
        isError: true,
      });
    });

    it('reads RE2 syntax that ripgrep refuses (\\Q...\\E) with the JavaScript search', async () => {
      expect((await grep({ pattern: '\\QfooBar\\E' })).content).toBe('docs/notes.md:2:fooBar and foobaz');
    });

    it('caps the output with a note', async () => {
      expect((await grep({ pattern: 'TODO' }, { maxLines: 2 })).content).toBe(
        'src/a.ts:2:// TODO: rename a\nsrc/b.ts:3:TODO three\n\n' +
          '[Output capped after 2 lines. Narrow the pattern, path or glob to see the rest.]',
      );
      expect((await grep({ pattern: 'TODO' }, { maxBytes: 40 })).content).toBe(
        'src/a.ts:2:// TODO: rename a\n\n[Output capped after 1 line. Narrow the pattern, path or glob to see the rest.]',
      );
    });

    it('refuses paths outside the workspace and missing paths', async () => {
      expect((await grep({ pattern: 'x', path: '../outside' })).isError).toBe(true);
      expect(await grep({ pattern: 'x', path: 'missing' })).toEqual(
        refusal('"missing" does not exist in the workspace.'),
      );
    });
  });

describe('grep reports the engine that ran', () => {
  const engineOf = async (input: Record<string, unknown>, useRipgrep: boolean) => {
    const progress: unknown[] = [];
    await grepTool({ useRipgrep }).run(input as never, context(fx.root, { progress }));
    return progress;
  };

  it('as a progress event: ripgrep when it is on PATH, JavaScript when forced or for syntax ripgrep refuses', async () => {
    expect(await engineOf({ pattern: 'TODO' }, false)).toEqual([
      { type: 'grep.engine', engine: 'javascript' },
    ]);
    expect(await engineOf({ pattern: 'TODO' }, true)).toEqual([
      { type: 'grep.engine', engine: rg === undefined ? 'javascript' : 'ripgrep' },
    ]);
    // \Q...\E is RE2 syntax that ripgrep refuses: the JavaScript search answers instead.
    expect(await engineOf({ pattern: '\\QfooBar\\E' }, true)).toEqual([
      { type: 'grep.engine', engine: 'javascript' },
    ]);
    // A pattern neither engine takes runs nowhere.
    expect(await engineOf({ pattern: 'foo(?=Bar)' }, true)).toEqual([]);
  });
});
