import type { CommanderError } from 'commander';
import { AgentchartError } from '../errors/agentchart-error.ts';
import { ConfigError } from '../errors/config-error.ts';
import { messageOf } from '../errors/describe-value.ts';
import { CliError } from './cli-error.ts';

// How an error that ended a command is told: one line on stderr and an exit code.

/**
 * The exit code of an error that ended a command: a `CliError`'s own; 2 for a `ConfigError` (whatever layer
 * threw it, it names something the caller gave: a path that is no session log, a bad settings or MCP file,
 * a session another agent holds); 1 for anything else.
 */
export function exitCodeOf(error: unknown): number {
  if (error instanceof CliError) return error.exitCode;
  return ConfigError.isInstance(error) ? 2 : 1;
}

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
