// The project's instruction files, found as Claude Code finds its memory files
// (docs/instructions-and-skills.md): the user's own, then AGENTS.md, CLAUDE.md, .claude/CLAUDE.md and
// CLAUDE.local.md in every folder from the repository root down to the workspace, each followed by the files
// it imports with `@path`.
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { LogEvent } from '../session/types.ts';
import { isInside, toWorkspacePath } from '../tools/workspace.ts';
import {
  type CandidateRead,
  foldersDownTo,
  projectInstructionNames,
  readCandidate,
  realFolder,
  repositoryRoot,
  userInstructionFolders,
  userInstructionNames,
} from './instruction-files.ts';
import { findImports } from './instruction-imports.ts';

// One file longer than this is cut, and so is everything past the total: a stray huge file, or a chain of
// imports, cannot fill the context window.
const maxFileChars = 40_000;
const maxTotalChars = 100_000;
const maxFiles = 64;
// Claude Code's documented limit: a file may import files that import others, five hops at most.
const maxImportDepth = 5;
// What a log records of the imports that were not read (a file may mention many `@handles`).
const maxSkipped = 50;

/** Where the user's own files are: the home folder (the library reads none unless it is given). */
export type InstructionSources = { home?: string | undefined };

/** A file that was read: its path relative to the workspace (`../../AGENTS.md`) or `~/…`. */
export type LoadedInstruction = { file: string; importedBy?: string };

/** A file or import that was not read, and why (`import` is the path as written after `@`). */
export type SkippedInstruction = { file: string; import?: string; problem: string };

export type ProjectInstructions = {
  /** A section to append to the system prompt; empty when no file was found. */
  text: string;
  /** The files read, in the order the model reads them. */
  files: LoadedInstruction[];
  /** Files and imports refused (each import also has a note in the text, after its file). */
  skipped: SkippedInstruction[];
  /** Imports that name no file: they stay text as written, as in Claude Code (`@someone` in prose). */
  unresolved: { file: string; import: string }[];
};

/** Where an agent's project instructions come from: read from disk, taken from a recording, or none. */
export type InstructionSetting = { read: InstructionSources } | { recorded: readonly LogEvent[] } | undefined;

const intro =
  "# Project instructions\n\nThese come from the files named below: the user's own first, then the project's " +
  'from its root down to this workspace (a later one is more specific), each import after the file that ' +
  "imports it. Follow them when working in this workspace; the user's direct requests come first.";

/**
 * Reads the instruction files of the workspace `cwd` and formats them as one section for the system prompt.
 * A file reached twice (a link, an import of a file already read, a cycle) is read once.
 *
 * @example
 * const { text, files } = await loadProjectInstructions(cwd, { home: os.homedir() });
 */
export async function loadProjectInstructions(
  cwd: string,
  sources: InstructionSources = {},
): Promise<ProjectInstructions> {
  const workspace = await realpath(cwd);
  const projectRoot = (await repositoryRoot(workspace)) ?? workspace;
  const home = sources.home === undefined ? undefined : path.resolve(sources.home);
  const userFolders = home === undefined ? [] : userInstructionFolders.map((name) => path.join(home, name));
  const realUserFolders = await Promise.all(userFolders.map(realFolder));
  const reader = new InstructionReader({
    workspace,
    userFolders,
    home,
    importRoots: [projectRoot, ...realUserFolders.filter((folder) => folder !== undefined)],
  });
  if (home !== undefined)
    for (const name of userInstructionNames) await reader.readFound(path.join(home, name), 'user');
  for (const folder of foldersDownTo(projectRoot, workspace))
    for (const name of projectInstructionNames) await reader.readFound(path.join(folder, name), 'project');
  return reader.result();
}

/** The system-prompt section and what `session.start` records, for an agent's setting. */
export async function instructionsFor(
  setting: InstructionSetting,
  cwd: string,
): Promise<{ text: string; startConfig: Record<string, unknown> }> {
  if (setting === undefined) return { text: '', startConfig: {} };
  // A replay sends the recorded system prompt (which holds the text) and records what the recording did.
  if ('recorded' in setting) return { text: '', startConfig: recordedStartConfig(setting.recorded) };
  const loaded = await loadProjectInstructions(cwd, setting.read);
  return { text: loaded.text, startConfig: instructionsStartConfig(loaded) };
}

/** What `session.start` records in `config` (nothing when no file was found or refused). */
export function instructionsStartConfig(loaded: ProjectInstructions): Record<string, unknown> {
  return {
    ...(loaded.files.length > 0 ? { instructionFiles: loaded.files } : {}),
    ...(loaded.skipped.length > 0 ? { instructionsSkipped: loaded.skipped } : {}),
  };
}

function recordedStartConfig(events: readonly LogEvent[]): Record<string, unknown> {
  const start = events[0];
  const config = (start?.type === 'session.start' ? start.data.config : undefined) as
    | Record<string, unknown>
    | undefined;
  if (config === undefined) return {};
  return {
    ...('instructionFiles' in config ? { instructionFiles: config.instructionFiles } : {}),
    ...('instructionsSkipped' in config ? { instructionsSkipped: config.instructionsSkipped } : {}),
  };
}

type Places = {
  workspace: string;
  home: string | undefined;
  /** `~/.agentchart` and `~/.claude` as given (to name files `~/…`). */
  userFolders: string[];
  /** The real folders a project file or an import may be in. */
  importRoots: string[];
};

type Found = { path: string; display: string; real: string; text: string };
type Section = { heading: string; body: string; notes: string[] };

/** Reads files in order, once each, within the limits, and keeps what the model and the log are told. */
class InstructionReader {
  private readonly files: LoadedInstruction[] = [];
  private readonly skipped: SkippedInstruction[] = [];
  private readonly unresolved: ProjectInstructions['unresolved'] = [];
  private readonly sections: Section[] = [];
  private readonly seen = new Set<string>();
  private chars = 0;

  constructor(private readonly places: Places) {}

  /** A file found by name: the user's own are theirs wherever they link to; the project's stay inside. */
  async readFound(file: string, owner: 'user' | 'project'): Promise<void> {
    const display = this.display(file);
    const read = await readCandidate(file, maxFileChars, owner === 'user' ? () => true : this.allowed);
    if (read.kind === 'missing') return;
    if (read.kind !== 'file') return this.skip({ file: display, problem: problemOf(read) });
    const problem = await this.include({ path: file, display, real: read.real, text: read.text }, 0);
    if (problem !== undefined) this.skip({ file: display, problem });
  }

  result(): ProjectInstructions {
    const { files, skipped, unresolved } = this;
    if (this.sections.length === 0) return { text: '', files, skipped, unresolved };
    const parts = this.sections.map((section) =>
      [`## ${section.heading}`, section.body, ...section.notes].join('\n\n'),
    );
    return { text: `${intro}\n\n${parts.join('\n\n')}\n`, files, skipped, unresolved };
  }

  private readonly allowed = (real: string): boolean =>
    this.places.importRoots.some((root) => isInside(root, real));

  /** Adds a file's section, then its imports; says why when it could not be added. */
  private async include(found: Found, depth: number, importedBy?: string): Promise<string | undefined> {
    if (this.seen.has(found.real)) return undefined;
    this.seen.add(found.real);
    const body = found.text.trim();
    if (body === '') return undefined;
    const room = maxTotalChars - this.chars;
    if (this.files.length >= maxFiles) return `the instructions already come from ${maxFiles} files`;
    if (room <= 0) return `the instructions already reached ${maxTotalChars} characters`;
    const limit = Math.min(maxFileChars, room);
    const shown = body.length <= limit ? body : body.slice(0, limit);
    const cut =
      body.length <= limit
        ? []
        : [
            `[${found.display} was cut at ${limit} characters${limit < maxFileChars ? ': the instructions reached their limit' : ''}.]`,
          ];
    this.chars += shown.length;
    const section: Section = {
      heading: importedBy === undefined ? found.display : `${found.display} (imported by ${importedBy})`,
      body: shown,
      notes: cut,
    };
    this.sections.push(section);
    this.files.push({ file: found.display, ...(importedBy !== undefined ? { importedBy } : {}) });
    for (const spec of findImports(shown)) await this.importInto(section, spec, found, depth + 1);
    return undefined;
  }

  private async importInto(section: Section, spec: string, importer: Found, depth: number): Promise<void> {
    const refuse = (problem: string) => {
      section.notes.push(`[@${spec} was not read: ${problem}.]`);
      this.skip({ file: importer.display, import: spec, problem });
    };
    const { home } = this.places;
    const fromHome = spec.startsWith('~/');
    if (fromHome && home === undefined) return refuse('no home folder was given');
    const target =
      fromHome && home !== undefined
        ? path.join(home, spec.slice(2))
        : path.resolve(path.dirname(importer.path), spec);
    if (depth > maxImportDepth) return refuse(`it is more than ${maxImportDepth} imports deep`);
    const read = await readCandidate(target, maxFileChars, this.allowed);
    // As in Claude Code, a path that names no file stays text as written (a mention of `@someone`).
    if (read.kind === 'missing') {
      if (this.unresolved.length < maxSkipped) this.unresolved.push({ file: importer.display, import: spec });
      return;
    }
    if (read.kind !== 'file') return refuse(problemOf(read));
    const found = { path: target, display: this.display(target), real: read.real, text: read.text };
    const problem = await this.include(found, depth, importer.display);
    if (problem !== undefined) refuse(problem);
  }

  /** `~/…` for the user's folders, otherwise relative to the workspace (portable across machines). */
  private display(file: string): string {
    const { home, userFolders, workspace } = this.places;
    if (home !== undefined && userFolders.some((folder) => isInside(folder, file)))
      return `~/${toWorkspacePath(home, file)}`;
    return toWorkspacePath(workspace, file);
  }

  private skip(entry: SkippedInstruction): void {
    if (this.skipped.length < maxSkipped) this.skipped.push(entry);
  }
}

function problemOf(read: Exclude<CandidateRead, { kind: 'file' } | { kind: 'missing' }>): string {
  if (read.kind === 'outside')
    return "it is outside the repository and the user's ~/.claude and ~/.agentchart";
  return read.what;
}
