// Every code block of the README and docs/ is what it says: a ```ts block type-checks against the
// package's published types (a block marked ```ts fragment is a piece of a program and is only parsed),
// a shell block runs `agentchart` commands and options that exist, a JSON block parses. The published
// types are dist/*.d.ts: `npm test` builds them first.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  commandProblems,
  commandTree,
  jsonProblem,
  type NamedBlock,
  shellLines,
  synopsisLines,
  typeCheck,
} from './code-checks.ts';
import { projectPages, repoRoot, writtenPages } from './markdown-pages.ts';

const pages = writtenPages(projectPages());
const blocks: NamedBlock[] = pages.flatMap((page) =>
  page.blocks.map((block) => ({ file: page.file, block })),
);
const ofLang = (...langs: string[]) => blocks.filter(({ block }) => langs.includes(block.lang));
const typescript = ofLang('ts', 'typescript');

/** Syntax errors only: what transpiling the text reports. */
function syntaxProblems(file: string, text: string, fileName: string): string[] {
  const { diagnostics = [] } = ts.transpileModule(text, { fileName, reportDiagnostics: true });
  return diagnostics.map(
    (diagnostic) => `${file}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`,
  );
}

beforeAll(() => {
  try {
    execFileSync(process.execPath, [join(repoRoot, 'scripts/build.mjs'), '--check'], { encoding: 'utf8' });
  } catch (error) {
    throw new Error(
      `dist/ is not built from src/ as it is: run \`npm run build\` first\n${(error as Error).message}`,
    );
  }
});

describe('code blocks in the README and docs/', () => {
  it('names a language on every block', () => {
    const bare = blocks
      .filter(({ block }) => block.lang === '')
      .map(({ file, block }) => `${file}:${block.line - 1}`);
    expect(bare).toEqual([]);
  });

  it('type-checks every TypeScript block against the published types', () => {
    const whole = typescript.filter(({ block }) => !block.marks.includes('fragment'));
    expect(whole.length).toBeGreaterThan(20);
    // One planted mistake, checked in the same program, shows the check sees what a reader would get wrong.
    const planted: NamedBlock = {
      file: 'planted.md',
      block: {
        lang: 'ts',
        marks: [],
        line: 10,
        text: "import { createAgentSystem } from 'agentchart';\ncreateAgentSystem({ modle: 1 });",
      },
    };
    expect(typeCheck([...whole, planted])).toEqual([
      "planted.md:11 TS2561: Object literal may only specify known properties, but 'modle' does not exist in type 'AgentSystemOptions'. Did you mean to write 'model'?",
    ]);
  }, 120_000);

  it('keeps fragments rare, and parses them', () => {
    const fragments = typescript.filter(({ block }) => block.marks.includes('fragment'));
    expect(fragments.length).toBeLessThanOrEqual(Math.ceil(typescript.length / 10));
    const broken = fragments.flatMap(({ file, block }) => syntaxProblems(file, block.text, 'fragment.ts'));
    expect(broken).toEqual([]);
  });

  it('parses every JavaScript block', () => {
    const broken = ofLang('js', 'javascript', 'mjs').flatMap(({ file, block }) =>
      syntaxProblems(file, block.text, 'block.mjs'),
    );
    expect(broken).toEqual([]);
  });

  it('runs only agentchart commands and options that exist', () => {
    const tree = commandTree();
    expect(tree.has('run') && tree.has('mcp list') && tree.get('replay')?.has('--check')).toBe(true);
    expect(commandProblems('npx agentchart runn "x"', tree)).toEqual(['agentchart has no command "runn"']);
    expect(commandProblems('agentchart replay x.jsonl --chek', tree)).toEqual([
      'agentchart replay has no option --chek',
    ]);
    expect(commandProblems('npm install agentchart openai', tree)).toEqual([]);
    const problems: string[] = [];
    let commands = 0;
    for (const { file, block } of ofLang('sh', 'bash', 'shell', 'console')) {
      for (const line of shellLines(block)) {
        if (/(^|[\s;&|(])(npx\s+)?agentchart(\s|$)/.test(line.text)) commands += 1;
        for (const problem of commandProblems(line.text, tree))
          problems.push(`${file}:${line.line} ${problem}`);
      }
    }
    expect(commands).toBeGreaterThan(15);
    expect(problems).toEqual([]);
  });

  it('lists in each synopsis only commands and options that exist', () => {
    const tree = commandTree();
    const problems: string[] = [];
    let commands = 0;
    for (const { file, block } of blocks.filter(({ block }) => block.marks.includes('synopsis'))) {
      for (const line of synopsisLines(block)) {
        commands += 1;
        for (const problem of commandProblems(line.text, tree))
          problems.push(`${file}:${line.line} ${problem}`);
      }
    }
    expect(commands).toBeGreaterThan(15);
    expect(problems).toEqual([]);
  });

  it('parses every JSON block', () => {
    const broken = ofLang('json').flatMap(({ file, block }) => {
      const problem = jsonProblem(block.text);
      return problem ? [`${file}:${block.line}: ${problem}`] : [];
    });
    expect(broken).toEqual([]);
  });
});
