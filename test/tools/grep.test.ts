import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { grepTool } from '../../src/tools/grep.ts';
import { findRipgrep } from '../../src/tools/grep-ripgrep.ts';
import { context, type Fixture, makeWorkspace, result, writeFiles } from './workspace-fixture.ts';

let fx: Fixture;
beforeEach(async () => {
  fx = await makeWorkspace();
  await writeFiles(fx.root, {
    '.gitignore': 'dist/\n',
    '.git/config': 'TODO in git\n',
    'node_modules/pkg/index.js': 'TODO in deps\n',
    'dist/out.js': 'TODO in build output\n',
    'blob.bin': Buffer.from('TODO\0binary'),
    'src/a.ts': 'const a = 1;\n// TODO: rename a\nexport { a };\n',
    'src/b.ts': ['one', 'two', 'TODO three', 'four', 'five', 'six', 'seven', 'TODO eight', 'nine'].join('\n'),
    'docs/notes.md': 'todo lower case\nfooBar and foobaz\n',
  });
});
afterEach(() => fx.cleanup());

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
      expect(await grep({ pattern: 'TODO' })).toEqual({
        content: 'src/a.ts:2:// TODO: rename a\nsrc/b.ts:3:TODO three\nsrc/b.ts:8:TODO eight',
        isError: false,
      });
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

    it('handles JavaScript-only syntax (lookahead) and reports invalid patterns', async () => {
      expect((await grep({ pattern: 'foo(?=Bar)' })).content).toBe('docs/notes.md:2:fooBar and foobaz');
      const bad = await grep({ pattern: 'a(' });
      expect(bad.isError).toBe(true);
      expect(bad.content).toMatch(/^Invalid regular expression "a\(": /);
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
      expect(await grep({ pattern: 'x', path: 'missing' })).toEqual({
        content: '"missing" does not exist in the workspace.',
        isError: true,
      });
    });
  });

describe('grep reports the engine that ran', () => {
  const engineOf = async (input: Record<string, unknown>, useRipgrep: boolean) => {
    const progress: unknown[] = [];
    await grepTool({ useRipgrep }).run(input as never, context(fx.root, { progress }));
    return progress;
  };

  it('as a progress event: ripgrep when it is on PATH, JavaScript when forced or for JavaScript-only syntax', async () => {
    expect(await engineOf({ pattern: 'TODO' }, false)).toEqual([
      { type: 'grep.engine', engine: 'javascript' },
    ]);
    expect(await engineOf({ pattern: 'TODO' }, true)).toEqual([
      { type: 'grep.engine', engine: rg === undefined ? 'javascript' : 'ripgrep' },
    ]);
    // Lookahead is JavaScript-only: ripgrep refuses it and the JavaScript search answers instead.
    expect(await engineOf({ pattern: 'foo(?=Bar)' }, true)).toEqual([
      { type: 'grep.engine', engine: 'javascript' },
    ]);
  });
});
