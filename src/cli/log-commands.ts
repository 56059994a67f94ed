import type { Command } from 'commander';
import { CliError } from './cli-error.ts';
import type { AgentsFlags } from './commands/agents.ts';
import type { ConfigFlags } from './commands/config.ts';
import type { DemoFlags } from './commands/demo.ts';
import type { DiagramsFlags } from './commands/diagrams.ts';
import type { McpListFlags } from './commands/mcp.ts';
import type { WorktreesFlags } from './commands/worktrees.ts';
import { positiveInteger } from './option-values.ts';
import type { CliIo } from './terminal/io.ts';

// The commands that need no model key. Each is loaded when it runs, so `replay` does not load the SDKs.

type ReplayFlags = {
  check?: boolean;
  setup?: string;
  json?: boolean;
  tools?: string;
  workspace?: string;
  postgres?: string;
  export?: string;
};

/** `replay`, `demo` and `diagrams`: commands that need no model key. */
export function addLogCommands(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('replay')
    .description(
      're-render a recorded session as a transcript (no model is called, no tool runs); with --check, re-run it through the current runtime and compare the logs',
    )
    .argument('<file>', 'the session log (.jsonl), or with --postgres the session id')
    .option(
      '--postgres <url>',
      'read the session from this PostgreSQL store (where workers keep them), read-only',
    )
    .option('--export <file>', 'with --postgres: also write the session as a .jsonl log file (a new file)')
    .option('--check', 're-run with the recorded responses, ids and clock; exit 1 at the first diverging seq')
    .option(
      '--setup <module>',
      'with --check: a module whose default export gives the tools, approver and hooks',
    )
    .option(
      '--tools <source>',
      'with --check: "recorded" (default: every tool result from the log, no tool runs, any folder) or "live" (run the tools again)',
    )
    .option(
      '--workspace <dir>',
      'with --check --tools live: where the tools run, a copy restored to how the workspace was when the session started',
    )
    .option('--json', 'with --check: print the result (and the divergence report) as one JSON line')
    .action(async (file: string, flags: ReplayFlags) => {
      if (flags.check) {
        const { replayCheckCommand } = await import('./commands/replay-check.ts');
        return setExitCode(await replayCheckCommand(file, flags, io));
      }
      for (const flag of ['setup', 'json', 'tools', 'workspace'] as const)
        if (flags[flag] !== undefined) throw new CliError(`--${flag} is only for replay --check`);
      const { replayCommand } = await import('./commands/replay.ts');
      const source = {
        ...(flags.postgres !== undefined ? { postgres: flags.postgres } : {}),
        ...(flags.export !== undefined ? { export: flags.export } : {}),
      };
      setExitCode(await replayCommand(file, io, source));
    });

  program
    .command('demo')
    .description('watch a scripted agent fix a bug in a temporary project (no API key needed)')
    .option('--json', 'print every live event as one JSON line on stdout, and nothing else there')
    .option('--keep', 'keep the temporary workspace afterwards')
    .option('--states', "show the machines' state changes between the transcript's lines")
    .option('--mcp-config <file>', 'start the MCP servers of this .mcp.json-shaped file and list their tools')
    .action(async (flags: DemoFlags) => {
      const { demoCommand } = await import('./commands/demo.ts');
      setExitCode(await demoCommand(flags, io));
    });

  program
    .command('inspect')
    .description(
      'open the live inspector: a recorded session (FILE), or the scripted demo agent, in a browser',
    )
    .argument('[file]', 'a recorded session log (.jsonl) to show read-only')
    .option('--port <n>', 'the port on 127.0.0.1 (default 4777)', (value) => positiveInteger(value))
    .option('--postgres <url>', 'show every session of this PostgreSQL store (a distributed job), read-only')
    .action(async (file: string | undefined, flags: { port?: number; postgres?: string }) => {
      const { inspectCommand } = await import('./commands/inspect.ts');
      const options = {
        ...(flags.port ? { port: flags.port } : {}),
        ...(flags.postgres ? { postgres: flags.postgres } : {}),
      };
      setExitCode(await inspectCommand({ ...(file ? { file } : {}), ...options }, io));
    });

  const mcp = program.command('mcp').description('the MCP servers an agent would use');
  mcp
    .command('list')
    .description('start each MCP server of .mcp.json (or --config FILE) once and show its state and tools')
    .option('--cwd <dir>', 'the workspace whose .mcp.json is read (default: the current folder)')
    .option('--config <file>', 'an MCP config file in the shape of .mcp.json ({ "mcpServers": {...} })')
    .option(
      '--workspace-mcp',
      "start the servers of the workspace's own .mcp.json (it could name any command)",
    )
    .option('--json', 'print one JSON object instead of text')
    .action(async (flags: McpListFlags) => {
      const { mcpListCommand } = await import('./commands/mcp.ts');
      setExitCode(await mcpListCommand(flags, io));
    });

  program
    .command('config')
    .description('print the merged settings files and where each value came from')
    .option('--cwd <dir>', 'the workspace whose settings are read (default: the current folder)')
    .option('--workspace-mcp', "count the workspace's MCP servers as trusted, as run --workspace-mcp does")
    .option('--workspace-hooks', "count the workspace's hooks as trusted, as run --workspace-hooks does")
    .option(
      '--workspace-permissions',
      "count the workspace's permissions as trusted, as run --workspace-permissions does",
    )
    .option('--json', 'print one JSON object instead of text')
    .action(async (flags: ConfigFlags) => {
      const { configCommand } = await import('./commands/config.ts');
      setExitCode(await configCommand(flags, io));
    });

  program
    .command('agents')
    .description('list the agent definitions (.agentchart/agents, .claude/agents) and the files skipped')
    .option('--cwd <dir>', 'the workspace whose definitions are read (default: the current folder)')
    .option('--json', 'print one JSON object instead of text')
    .action(async (flags: AgentsFlags) => {
      const { agentsCommand } = await import('./commands/agents.ts');
      setExitCode(await agentsCommand(flags, io));
    });

  program
    .command('worktrees')
    .description('list the git worktrees isolated agents left (--prune removes the ones without a change)')
    .option('--cwd <dir>', 'a folder of the repository (default: the current folder)')
    .option('--prune', 'remove worktrees and branches without a change, and forget deleted folders')
    .option('--json', 'one JSON object per worktree on stdout')
    .action(async (flags: WorktreesFlags) => {
      const { worktreesCommand } = await import('./commands/worktrees.ts');
      setExitCode(await worktreesCommand(flags, io));
    });

  program
    .command('diagrams')
    .description("draw the four statecharts as Mermaid files (agentchart's own machines)")
    .option('--out <dir>', 'the folder to write to', 'diagrams')
    .option('--check', 'write nothing; exit 1 when a diagram is missing or out of date')
    .action(async (flags: DiagramsFlags) => {
      const { runDiagramsCommand } = await import('./commands/diagrams.ts');
      setExitCode(await runDiagramsCommand(flags, io));
    });
}
