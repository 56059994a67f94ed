import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { AgentchartError } from '../errors/agentchart-error.ts';
import { ConfigError } from '../errors/config-error.ts';
import { messageOf } from '../errors/describe-value.ts';
import { permissionModes } from '../permissions/modes.ts';
import type { AgentFlags } from './agent-system.ts';
import { CliError } from './cli-error.ts';
import type { ChatFlags } from './commands/chat.ts';
import type { CompactFlags } from './commands/compact.ts';
import type { ConfigFlags } from './commands/config.ts';
import type { DemoFlags } from './commands/demo.ts';
import type { DiagramsFlags } from './commands/diagrams.ts';
import type { WorkerFlags } from './commands/distributed.ts';
import type { JobFlags } from './commands/job.ts';
import type { McpListFlags } from './commands/mcp.ts';
import type { RunFlags } from './commands/run.ts';
import { type CliIo, line } from './terminal/io.ts';

const description =
  'Run a coding agent whose loop is a set of XState statecharts, with an append-only session log.';

/** Adds the options `run` and `resume` share. */
function agentOptions(command: Command): Command {
  return command
    .option('--cwd <dir>', 'the workspace the agent works in (default: the current directory)')
    .addOption(
      new Option('--provider <name>', 'model provider (default: from the environment)').choices([
        'anthropic',
        'openai',
        'openai-responses',
      ]),
    )
    .option('--model <name>', 'model name (default: ANTHROPIC_MODEL / OPENAI_MODEL or the provider default)')
    .addOption(
      new Option(
        '--mode <mode>',
        'permission mode (default: "default": reads run, edits and commands ask)',
      ).choices(permissionModes),
    )
    .option('-y, --yes', 'allow file edits without asking (the same as --mode accept-edits)')
    .option(
      '--context-window <tokens>',
      "the model's context window, for a model agentchart does not know (default: AGENTCHART_CONTEXT_WINDOW, the adapter's table, else 32000)",
      (value) => positiveInteger(value),
    )
    .option(
      '--allow <rule>',
      'let calls this rule covers run without asking, e.g. "bash(npm test:*)" (repeatable; adds to .agentchart/settings.json)',
      collect,
    )
    .option('--deny <rule>', 'always deny calls this rule covers, e.g. "bash(rm:*)" (repeatable)', collect)
    .option(
      '--session-dir <dir>',
      "where session logs go (default: agentchart's folder in the user's state folder, one per workspace)",
    )
    .option('--max-steps <n>', 'model requests in one turn (default 25)', (value) => positiveInteger(value))
    .option(
      '--workspace-mcp',
      "also start the MCP servers the workspace's .agentchart/settings.json names (the user's are always started)",
    )
    .option(
      '--workspace-hooks',
      "also run the command hooks the workspace's .agentchart/settings.json names (the user's always run)",
    )
    .option(
      '--workspace-permissions',
      "also take the allow rules and a looser defaultMode of the workspace's .agentchart/settings.json (without it that file may only make permissions stricter)",
    )
    .option('--states', "show the machines' state changes between the transcript's lines")
    .option('--json', 'print every live event as one JSON line on stdout, and nothing else there');
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

// Commands are loaded when they run, so `--help` or `replay` does not load the model SDKs.
function buildProgram(io: CliIo, setExitCode: (code: number) => void): Command {
  const program = new Command('agentchart')
    .description(description)
    .version(packageJson.version)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // Commander's own errors are printed by `main` in the CLI's one-line form.
      outputError: () => {},
    })
    .showSuggestionAfterError(true)
    .addHelpText(
      'after',
      '\nModels: --provider/--model, else ANTHROPIC_API_KEY, else OPENAI_API_KEY or OPENAI_BASE_URL ' +
        '(any OpenAI-compatible server).\nNo key? `agentchart demo` runs a scripted model through the real runtime.',
    );
  addAgentCommands(program, io, setExitCode);
  addLogCommands(program, io, setExitCode);
  return program;
}

/** `run` and `resume`: commands that talk to a model. */
function addAgentCommands(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  agentOptions(
    program.command('chat').description('an interactive session (the default: `agentchart` with no command)'),
  )
    .option('--continue', 'continue the most recent session of this workspace')
    .option('--resume <id>', 'continue a session: its id or its file')
    .action(async (flags: ChatFlags) => {
      if (flags.json)
        throw new CliError('chat is interactive: use `agentchart run --json` for JSON output', {
          exitCode: 2,
        });
      const { chatCommand } = await import('./commands/chat.ts');
      setExitCode(await chatCommand(flags, io));
    });

  agentOptions(program.command('run').description('run a coding agent on a task in a folder'))
    .argument('<task>', 'what the agent should do')
    .option(
      '--session <file>',
      "the session log to write (default: <id>.jsonl in --session-dir, else in the user's state folder)",
    )
    .action(async (task: string, flags: RunFlags) => {
      const { runCommand } = await import('./commands/run.ts');
      setExitCode(await runCommand(task, flags, io));
    });

  agentOptions(
    program
      .command('resume')
      .description('continue a recorded session: its unanswered input, or the next message you give'),
  )
    .argument('<session>', 'the session: its log file (.jsonl) or its id')
    .argument('[message]', 'the next message for the agent')
    .action(async (file: string, message: string | undefined, flags: AgentFlags) => {
      const { resumeCommand } = await import('./commands/resume.ts');
      setExitCode(await resumeCommand(file, message, flags, io));
    });

  agentOptions(
    program
      .command('compact')
      .description('summarise the older part of a recorded session now (the raw events stay in the log)'),
  )
    .argument('<session>', 'a session id of this workspace, or the session log (.jsonl)')
    .option('--instructions <text>', 'what the summary must keep, added to the summarising request')
    .action(async (file: string, flags: CompactFlags) => {
      const { compactCommand } = await import('./commands/compact.ts');
      setExitCode(await compactCommand(file, flags, io));
    });

  agentOptions(
    program
      .command('job')
      .description('run many agents from a JSON file: {"tasks":[{"prompt":"…"}],"concurrency":4}'),
  )
    .argument('<file>', 'the job file (.json)')
    .option('--concurrency <n>', 'agents alive at once (overrides the file)', (value) =>
      positiveInteger(value),
    )
    .option(
      '--redis <url>',
      'enqueue the tasks on BullMQ workers (with --postgres) instead of running them here',
    )
    .option('--postgres <url>', 'the PostgreSQL database the workers keep sessions in')
    .option('--queue <name>', 'the BullMQ queue (default "agentchart")')
    .action(async (file: string, flags: JobFlags) => {
      if (flags.redis !== undefined || flags.postgres !== undefined) {
        const { distributedJobCommand } = await import('./commands/distributed.ts');
        return setExitCode(await distributedJobCommand(file, flags, io));
      }
      const { runJobCommand } = await import('./commands/job.ts');
      setExitCode(await runJobCommand(file, flags, io));
    });

  agentOptions(
    program.command('worker').description('run queued tasks (BullMQ on Redis, sessions in PostgreSQL)'),
  )
    .requiredOption('--redis <url>', 'the Redis of the queue')
    .requiredOption('--postgres <url>', 'the PostgreSQL database of the sessions')
    .option('--queue <name>', 'the BullMQ queue (default "agentchart")')
    .option('--concurrency <n>', 'tasks this worker runs at once (default 1)', (value) =>
      positiveInteger(value),
    )
    .action(async (flags: WorkerFlags) => {
      const { workerCommand } = await import('./commands/distributed.ts');
      setExitCode(await workerCommand(flags, io));
    });

  program
    .command('migrate')
    .description("create or update the PostgreSQL store's tables (versioned)")
    .requiredOption('--postgres <url>', 'the PostgreSQL database')
    .action(async (flags: { postgres: string }) => {
      const { migrateCommand } = await import('./commands/distributed.ts');
      setExitCode(await migrateCommand(flags, io));
    });
}

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new InvalidArgumentError('expected a whole number of at least 1');
  return parsed;
}

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
function addLogCommands(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
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
    .command('diagrams')
    .description("draw the four statecharts as Mermaid files (agentchart's own machines)")
    .option('--out <dir>', 'the folder to write to', 'diagrams')
    .option('--check', 'write nothing; exit 1 when a diagram is missing or out of date')
    .action(async (flags: DiagramsFlags) => {
      const { runDiagramsCommand } = await import('./commands/diagrams.ts');
      setExitCode(await runDiagramsCommand(flags, io));
    });
}

/**
 * The exit code of an error that ended a command: a `CliError`'s own; 2 for a `ConfigError` (whatever layer
 * threw it, it names something the caller gave: a path that is no session log, a bad settings or MCP file,
 * a session another agent holds); 1 for anything else.
 */
function exitCodeOf(error: unknown): number {
  if (error instanceof CliError) return error.exitCode;
  return ConfigError.isInstance(error) ? 2 : 1;
}

const helpOrVersion = new Set(['-h', '--help', '-V', '--version']);

/** The one line an error becomes on stderr: its message, with the AgentchartError code when there is one. */
export function describeError(error: unknown): string {
  const text = AgentchartError.isInstance(error) ? `${error.message} [${error.code}]` : messageOf(error);
  return oneLine(text);
}

/** Several lines (a schema's issues, a suggestion) joined into one, so every error stays one line. */
function oneLine(text: string): string {
  return text.trim().replace(/\s*\n\s*/g, '; ');
}

/**
 * Commander's usage error as the CLI's line: its message without the `error: ` prefix, what to read to
 * fix it, and the `usage` code. `command` is the subcommand the person typed, when it is one.
 */
export function usageLine(error: CommanderError, command: string | undefined): string {
  const message = oneLine(error.message.replace(/^error: /, ''))
    .replace(/; \((Did you mean .*)\)$/, ' ($1)')
    .replace(/\.$/, '');
  const help = command ? `agentchart ${command} --help` : 'agentchart --help';
  // `agentchart --bogus` opens the chat, so the option was refused by `chat`: point at both lists.
  const where =
    command === 'chat' && error.code === 'commander.unknownOption'
      ? 'see `agentchart --help` for the commands and `agentchart chat --help` for the options'
      : `see \`${help}\``;
  return `agentchart: ${message}; ${where} [usage]`;
}

/**
 * Runs the agentchart command line with `argv` (without the node and script paths) and returns the exit
 * code: 0 success, 1 failure, 2 usage or configuration, 130 cancelled. It never calls `process.exit`.
 *
 * @example
 * process.exitCode = await main(process.argv.slice(2));
 */
export async function main(argv: string[], io: Partial<CliIo> = {}): Promise<number> {
  const streams: CliIo = {
    stdout: io.stdout ?? process.stdout,
    stderr: io.stderr ?? process.stderr,
    stdin: io.stdin ?? process.stdin,
    env: io.env ?? process.env,
    cwd: io.cwd ?? process.cwd(),
  };
  let exitCode = 0;
  // `agentchart` alone, or with only options (`agentchart --continue`), is the interactive session.
  const opensChat = argv.length === 0 || (argv[0]!.startsWith('-') && !helpOrVersion.has(argv[0]!));
  if (opensChat) argv = ['chat', ...argv];
  const program = buildProgram(streams, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version end here too, with exit code 0 and their text already on stdout.
      if (error.exitCode === 0) return 0;
      const command = program.commands.some((known) => known.name() === argv[0]) ? argv[0] : undefined;
      line(streams.stderr, usageLine(error, command));
      return 2;
    }
    line(streams.stderr, `agentchart: ${describeError(error)}`);
    return exitCodeOf(error);
  }
}

// `tsx src/cli/main.ts demo` (npm run demo) runs the CLI directly; bin/agentchart.js imports it instead.
const entry = process.argv[1];
if (entry !== undefined && resolve(entry) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
