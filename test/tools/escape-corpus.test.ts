import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { codingTools } from '../../src/tools/coding-tools.ts';
import type { AnyTool } from '../../src/tools/define-tool.ts';
import {
  answer,
  context,
  link,
  result,
  snapshotTree,
  type ToolWorkspace,
  useToolWorkspace,
  writeFiles,
} from './workspace-fixture.ts';

const fx = useToolWorkspace({ 'src/a.ts': 'export const a = 1;\n' }, async (fixture) => {
  await link(fixture.sentinel, path.join(fixture.root, 'link-file'));
  await link(fixture.outside, path.join(fixture.root, 'link-dir'));
  await link(path.join(fixture.outside, 'planted.txt'), path.join(fixture.root, 'dangling'));
});

// Every path leaves the workspace in a different way; the sentinel text is what an attacker would want.
const corpus = (fx: ToolWorkspace): string[] => [
  '../outside/secret.txt',
  '../../etc/passwd',
  '/etc/passwd',
  fx.sentinel,
  'link-file',
  'link-dir/secret.txt',
  'link-dir/planted.txt',
  'dangling',
  'src/../../outside/secret.txt',
  'src/a.ts\0../../outside/secret.txt',
];

const inputsFor: Record<string, (userPath: string) => Record<string, unknown>> = {
  read_file: (p) => ({ path: p }),
  write_file: (p) => ({ path: p, content: 'PWNED' }),
  edit_file: (p) => ({ path: p, old_string: 'SENTINEL', new_string: 'PWNED' }),
  list_dir: (p) => ({ path: p }),
  glob: (p) => ({ pattern: '**/*', path: p }),
  grep: (p) => ({ pattern: 'SENTINEL', path: p }),
};

function fileTools(): AnyTool[] {
  return codingTools({ grep: { useRipgrep: false } }).filter((tool) => tool.name in inputsFor);
}

describe('escape corpus', () => {
  it('refuses every escape in every file tool and touches nothing outside', async () => {
    const before = await snapshotTree(fx.base);
    let cases = 0;
    for (const tool of fileTools()) {
      for (const userPath of corpus(fx)) {
        const out = result(await tool.run(inputsFor[tool.name]!(userPath), context(fx.root)));
        expect([tool.name, userPath, out.isError]).toEqual([tool.name, userPath, true]);
        expect(out.content).toMatch(/is outside the workspace|contains a NUL byte/);
        expect(out.content).not.toContain('SENTINEL');
        cases++;
      }
    }
    expect(cases).toBe(6 * 10);
    expect(await snapshotTree(fx.base)).toEqual(before);
  });

  it('runs the same corpus through grep with ripgrep allowed', async () => {
    const grep = codingTools().find((tool) => tool.name === 'grep')!;
    for (const userPath of corpus(fx)) {
      const out = result(await grep.run({ pattern: 'SENTINEL', path: userPath }, context(fx.root)));
      expect([userPath, out.isError, out.content.includes('SENTINEL')]).toEqual([userPath, true, false]);
    }
  });

  it('refuses glob patterns that climb out, and never walks a symlinked folder', async () => {
    const glob = codingTools().find((tool) => tool.name === 'glob')!;
    for (const pattern of ['../outside/*', '../**/*', '/etc/*', 'src/../../*']) {
      const out = result(await glob.run({ pattern }, context(fx.root)));
      expect([pattern, out.isError]).toEqual([pattern, true]);
    }
    const all = result(await glob.run({ pattern: '**/*' }, context(fx.root)));
    // Symbolic links are neither listed nor followed by the walk, so none of the three links shows up.
    expect(all.content.split('\n')).toEqual(['src/a.ts']);
  });

  it('greps the whole workspace without following a symlinked folder out of it', async () => {
    for (const useRipgrep of [true, false]) {
      const grep = codingTools({ grep: { useRipgrep } }).find((tool) => tool.name === 'grep')!;
      const out = result(await grep.run({ pattern: 'SENTINEL' }, context(fx.root)));
      expect([useRipgrep, out]).toEqual([
        useRipgrep,
        { content: 'No matches for "SENTINEL" in the workspace.', isError: false },
      ]);
    }
  });
});

describe('saved tool outputs: read-only, and nothing else outside', () => {
  // `<base>/outputs/s1` is a session's saved outputs; `evil` is a session folder that is a link outside.
  const saved = (fx: ToolWorkspace) => path.join(fx.base, 'outputs', 's1');
  const savedFile = '/agentchart-outputs/s1/1-1-call_1.txt';
  const withOutputs = (fx: ToolWorkspace) =>
    context(fx.root, {
      savedOutputs: { s1: saved(fx), evil: path.join(fx.base, 'outputs', 'evil'), gone: '/nonexistent' },
    });

  beforeEach(async () => {
    await writeFiles(saved(fx), { '1-1-call_1.txt': 'line one\nline two\n' });
    await link(fx.sentinel, path.join(saved(fx), 'planted.txt'));
    await link(fx.outside, path.join(fx.base, 'outputs', 'evil'));
  });

  const escapes = [
    '/agentchart-outputs/s1/../../outside/secret.txt',
    '/agentchart-outputs/../outside/secret.txt',
    '/agentchart-outputs/s1/planted.txt',
    '/agentchart-outputs/evil/secret.txt',
    '/agentchart-outputs/s1/sub/1-1-call_1.txt',
    '/agentchart-outputs/s1/',
    '/agentchart-outputs/s1',
    '/agentchart-outputs',
    '/agentchart-outputs/gone/1-1-call_1.txt',
    '/agentchart-outputs/nobody/1-1-call_1.txt',
    '/agentchart-outputs/s1/1-1-call_1.txt\0',
  ];

  it('reads a saved output by the path its result gave, in the workspace tools only through read_file', async () => {
    const read = fileTools().find((tool) => tool.name === 'read_file')!;
    expect(result(await read.run({ path: savedFile, offset: 2 }, withOutputs(fx)))).toEqual(
      answer('     2\tline two'),
    );
    // Without the runtime's saved outputs nothing outside the workspace is readable at all.
    const alone = result(await read.run({ path: savedFile }, context(fx.root)));
    expect([alone.isError, alone.content.includes('line one')]).toEqual([true, false]);
  });

  it('refuses every trick on the saved-output path in every file tool, and writes nothing there', async () => {
    const before = await snapshotTree(fx.base);
    const outcomes: unknown[] = [];
    for (const tool of fileTools()) {
      const paths = tool.name === 'read_file' ? escapes : [...escapes, savedFile];
      for (const userPath of paths) {
        const out = result(await tool.run(inputsFor[tool.name]!(userPath), withOutputs(fx)));
        outcomes.push([tool.name, userPath, out.isError, out.content.includes('SENTINEL')]);
      }
    }
    const expected = fileTools().flatMap((tool) =>
      (tool.name === 'read_file' ? escapes : [...escapes, savedFile]).map((userPath) => [
        tool.name,
        userPath,
        true,
        false,
      ]),
    );
    expect(outcomes).toEqual(expected);
    expect(outcomes).toHaveLength(6 * escapes.length + 5);
    expect(await snapshotTree(fx.base)).toEqual(before);
  });
});
