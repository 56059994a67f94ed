// Real instruction files from public repositories (test/fixtures/instructions/PROVENANCE.md), laid out
// in a temporary checkout as in their repository.
import { cp, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';

const fixtures = path.resolve(import.meta.dirname, '..', 'fixtures', 'instructions');

/** The first words of the system prompt's section (what `loadProjectInstructions` puts before the files). */
export const instructionsIntro =
  "# Project instructions\n\nThese come from the files named below: the user's own first, then the project's " +
  'from its root down to this workspace (a later one is more specific), each import after the file that ' +
  "imports it. Follow them when working in this workspace; the user's direct requests come first.";

/** Copies fixture `name` into `<base>/<name>` and makes it a repository root (a `.git` folder); its path. */
export async function copyFixture(name: string, base: string): Promise<string> {
  const repo = path.join(base, name);
  await cp(path.join(fixtures, name), repo, { recursive: true });
  await mkdir(path.join(repo, '.git'));
  return repo;
}

/** A fixture file's text as the model reads it (without its surrounding white space). */
export async function fixtureText(relative: string): Promise<string> {
  return (await readFile(path.join(fixtures, relative), 'utf8')).trim();
}
