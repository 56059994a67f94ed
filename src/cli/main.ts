import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { addAgentCommands } from './agent-commands.ts';
import { describeError, exitCodeOf, usageLine } from './error-line.ts';
import { addLogCommands } from './log-commands.ts';
import { type CliIo, line } from './terminal/io.ts';

const description =
  'Run a coding agent whose loop is a set of XState statecharts, with an append-only session log.';

/**
 * The command tree of `agentchart`: every command with its options (the doc checks read it to tell a
 * real subcommand from a stale one). Commands are loaded when they run, so building it, `--help` or
 * `replay` loads no model SDK.
 */
export function buildProgram(io: CliIo, setExitCode: (code: number) => void): Command {
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

const helpOrVersion = new Set(['-h', '--help', '-V', '--version']);

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
