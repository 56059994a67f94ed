import { type Command, Option } from 'commander';
import { permissionModes } from '../permissions/modes.ts';
import type { AgentFlags } from './agent-flags.ts';
import { CliError } from './cli-error.ts';
import type { ChatFlags } from './commands/chat.ts';
import type { CompactFlags } from './commands/compact.ts';
import type { WorkerFlags } from './commands/distributed.ts';
import type { JobFlags } from './commands/job.ts';
import type { RunFlags } from './commands/run.ts';
import { collect, positiveInteger } from './option-values.ts';
import type { CliIo } from './terminal/io.ts';

// The commands that talk to a model. Each is loaded when it runs, so `--help` does not load the SDKs.

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
    .option(
      '--background-agents',
      'let the model start agents that work beside it and write to them (spawn_agent, send_message, wait_agents, stop_agent, list_agents); the chat lists them with /agents',
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

/** `run` and `resume`: commands that talk to a model. */
export function addAgentCommands(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
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
      const { migrateCommand } = await import('./commands/migrate.ts');
      setExitCode(await migrateCommand(flags, io));
    });
}
