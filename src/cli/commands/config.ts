import { sep } from 'node:path';
import { loadProjectInstructions, type ProjectInstructions } from '../../runtime/project-instructions.ts';
import { settingsFiles } from '../../settings/settings-file.ts';
import type { SettingSource } from '../../settings/settings-types.ts';
import { userHome, workspaceOf } from '../agent-flags.ts';
import { cliSettings } from '../cli-permissions.ts';
import { printSkills, skillsOf } from '../skills-report.ts';
import { type CliIo, line } from '../terminal/io.ts';

export type ConfigFlags = {
  cwd?: string;
  json?: boolean;
  workspaceMcp?: boolean;
  workspaceHooks?: boolean;
  workspacePermissions?: boolean;
};

/**
 * `agentchart config`: the settings an agent in this workspace would run with (the user's file, then the
 * workspace's, merged) and where each value came from, including values that are not in force and why.
 * A bad file is the same one-line error `run` gives (exit 2). Also the instruction files and the skills `run`
 * would use, with every SKILL.md it would skip and why.
 */
export async function configCommand(flags: ConfigFlags, io: CliIo): Promise<number> {
  const cwd = await workspaceOf(io, flags.cwd);
  const settings = await cliSettings(io, cwd, flags);
  // The files `run` would put in the system prompt (docs/instructions-and-skills.md).
  const {
    files: instructionFiles,
    skipped,
    unresolved,
  } = await loadProjectInstructions(cwd, {
    home: userHome(io.env),
  });
  const instructions = { files: instructionFiles, skipped, unresolved };
  const skills = await skillsOf(cwd, io.env);
  const files = settingsFiles(cwd, io.env).map((file) => ({
    ...file,
    read: settings.files.includes(file.path),
  }));
  const merged = {
    permissions: settings.permissions,
    mcpServers: writtenServers(settings.sources),
    hooks: settings.hooks,
  };
  if (flags.json) {
    const { untrustedPermissions, untrustedMcpServers, untrustedHooks, sources, notUsed } = settings;
    line(
      io.stdout,
      JSON.stringify({
        workspace: cwd,
        files,
        settings: merged,
        untrustedPermissions,
        untrustedMcpServers,
        untrustedHooks,
        sources,
        notUsed,
        warnings: settings.warnings,
        instructions,
        skills,
      }),
    );
    return 0;
  }
  printInstructions(io, cwd, instructions);
  printSkills(io, cwd, skills);
  line(io.stdout, `Settings files for ${cwd} (later files win):`);
  // Claude Code's own project files are named only when present: most workspaces have none.
  for (const file of files.filter((each) => each.read || !each.path.includes(`${sep}.claude${sep}`)))
    line(io.stdout, `  ${file.scope.padEnd(9)} ${file.path}${file.read ? '' : ' (not present)'}`);
  const inForce = settings.sources.filter((source) => source.ignored === undefined);
  const ignored = settings.sources.filter((source) => source.ignored !== undefined);
  line(io.stdout);
  if (settings.sources.length === 0 && settings.notUsed.length === 0) {
    line(
      io.stdout,
      'No settings: every value is the default (mode default, no rules, no MCP servers, no hooks).',
    );
    return 0;
  }
  line(io.stdout, 'In force:');
  for (const source of inForce) line(io.stdout, describe(source));
  if (settings.permissions.defaultMode === undefined)
    line(io.stdout, '  permissions.defaultMode  (not set: default)');
  if (ignored.length > 0) {
    line(io.stdout, 'Not in force:');
    for (const source of ignored) line(io.stdout, `${describe(source)}: ${source.ignored}`);
  }
  if (settings.warnings.length > 0) {
    line(io.stdout, 'Warnings:');
    for (const warning of settings.warnings) line(io.stdout, `  ${warning}`);
  }
  if (settings.notUsed.length > 0) {
    line(io.stdout, 'Not used by agentchart (Claude Code settings):');
    for (const value of settings.notUsed) line(io.stdout, `${describe(value)}: ${value.why}`);
  }
  return 0;
}

/** The instruction files in the order the model reads them, and the imports not read; nothing when none. */
function printInstructions(io: CliIo, cwd: string, found: Omit<ProjectInstructions, 'text'>): void {
  const { files, skipped, unresolved } = found;
  if (files.length + skipped.length + unresolved.length === 0) return;
  line(io.stdout, `Instruction files for ${cwd} (in the order the model reads them):`);
  for (const { file, importedBy } of files)
    line(io.stdout, `  ${file}${importedBy === undefined ? '' : `  (imported by ${importedBy})`}`);
  for (const entry of skipped)
    line(
      io.stdout,
      `  not read: ${entry.import === undefined ? entry.file : `@${entry.import} in ${entry.file}`}: ${entry.problem}`,
    );
  for (const entry of unresolved)
    line(io.stdout, `  stays text: @${entry.import} in ${entry.file} (no such file)`);
  line(io.stdout);
}

function describe(source: SettingSource): string {
  return `  ${source.key} = ${JSON.stringify(source.value)}  from ${source.scope} ${source.file}`;
}

/** The servers in force as their files write them: what `${TOKEN}` expands to is not printed. */
function writtenServers(sources: readonly SettingSource[]): Record<string, unknown> {
  const prefix = 'mcpServers.';
  return Object.fromEntries(
    sources
      .filter((source) => source.key.startsWith(prefix) && source.ignored === undefined)
      .map((source) => [source.key.slice(prefix.length), source.value]),
  );
}
