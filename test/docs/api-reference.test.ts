// The API reference in docs/api/ is what `npm run docs` makes from the TSDoc as it is today. Cheap when
// nothing changed: the fingerprint `npm run docs` left beside the pages must match what TypeDoc would read
// (the shipped .d.ts files, its configuration, the versions) and the pages as they are. When it does not,
// TypeDoc runs again into a temporary folder and its pages must equal the committed ones.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  apiFolder,
  generate,
  inputsFingerprint,
  outputFingerprint,
  pagesIn,
  readFingerprint,
  root,
} from '../../scripts/api-reference.ts';

beforeAll(() => {
  try {
    execFileSync(process.execPath, [join(root, 'scripts/build.mjs'), '--check'], { encoding: 'utf8' });
  } catch (error) {
    throw new Error(
      `dist/ is not built from src/ as it is: run \`npm run build\` first\n${(error as Error).message}`,
    );
  }
});

/** The pages that differ between two folders of the reference, by relative path. */
function differences(expected: Map<string, string>, actual: Map<string, string>): string[] {
  const paths = new Set([...expected.keys(), ...actual.keys()]);
  return [...paths]
    .filter((path) => expected.get(path) !== actual.get(path))
    .map((path) =>
      expected.has(path) ? (actual.has(path) ? `changed: ${path}` : `missing: ${path}`) : `extra: ${path}`,
    )
    .sort();
}

describe('the API reference in docs/api/', () => {
  it('documents every entry point of the package', () => {
    const pages = [...pagesIn(apiFolder).keys()];
    for (const module of ['', 'testing/', 'anthropic/', 'openai/', 'ai-sdk/', 'postgres/', 'bullmq/'])
      expect(pages).toContain(`agentchart/${module}README.md`);
    expect(pages).toContain('agentchart/functions/createAgentSystem.md');
  });

  it('is what `npm run docs` makes from the declarations today', async () => {
    const recorded = readFingerprint();
    if (recorded?.inputs === inputsFingerprint() && recorded.output === outputFingerprint(apiFolder)) return;
    const fresh = await mkdtemp(join(tmpdir(), 'agentchart-api-'));
    try {
      await generate(fresh);
      const stale = differences(pagesIn(fresh), pagesIn(apiFolder));
      expect(stale, 'docs/api/ is stale: run `npm run docs` and commit docs/api/').toEqual([]);
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  }, 180_000);
});
