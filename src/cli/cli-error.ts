import { AgentchartError } from '../errors/agentchart-error.ts';

/**
 * A failure the CLI reports as one line, `agentchart: <message> [<code>]`, with an exit code: 2 for a
 * usage or configuration mistake (code `usage` unless given), 1 for a failure at run time (code `cli`).
 */
export class CliError extends AgentchartError<string> {
  readonly exitCode: number;

  constructor(message: string, options: { exitCode?: number; code?: string; cause?: unknown } = {}) {
    const code = options.code ?? (options.exitCode === 2 ? 'usage' : 'cli');
    super(code, message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'CliError';
    this.exitCode = options.exitCode ?? 1;
  }
}
