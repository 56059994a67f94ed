import type { LiveEvent } from '../actors/live-event.ts';
import { systemClock } from '../core/clock.ts';
import type { Agent, RunResult } from '../runtime/agent-handle.ts';
import type { AgentSystem } from '../runtime/create-agent-system.ts';
import { isEvent } from '../session/types.ts';
import { type CliIo, line, personOut, wantsColor } from './terminal/io.ts';
import { attachLiveView } from './terminal/live-view.ts';
import { formatDollars, formatUsage } from './terminal/render.ts';

export type DriveOptions = {
  io: CliIo;
  json: boolean;
  system: AgentSystem;
  agent: Agent;
  /** The provider's name, for naming the key variable in error messages. */
  providerName: string;
  sessionFile: string;
  /** Starts the work and resolves with the turn's result. */
  start: () => Promise<RunResult>;
  onEvent?: (event: LiveEvent) => void;
  /** Extra lines printed after the summary. */
  epilogue?: string[];
  /** `--states`: show the machines' state changes. */
  states?: boolean;
  /** With `json`: where in the log the emitted events begin (see `LiveViewOptions.logFrom`). */
  logFrom?: number;
};

/** The last line of `--json` output: how the turn ended, like other agent CLIs' final result. */
export type JsonResult = RunResult & { type: 'result'; sessionId: string; durationMs: number };

/** The command that continues a session file: `agentchart resume FILE "<next message>"`. */
export function resumeHint(sessionFile: string): string {
  return `agentchart resume ${sessionFile} "<next message>"`;
}

/** Exit codes by stop reason: 0 only for a completed turn; 130 (like SIGINT) for a cancelled one. */
export function exitCodeOf(result: RunResult): number {
  if (result.reason === 'completed') return 0;
  return result.reason === 'canceled' ? 130 : 1;
}

/**
 * Runs one turn of an agent with the live view attached, then disposes the system, prints a summary and
 * the session file, and returns the exit code. Ctrl-C cancels the turn once; a second one ends the process.
 */
export async function driveSession(options: DriveOptions): Promise<number> {
  const { io, json, system, agent } = options;
  const ui = personOut(io, json);
  const startedAt = systemClock.now();
  const view = attachLiveView({
    states: options.states ?? false,
    ...(options.logFrom !== undefined ? { logFrom: options.logFrom } : {}),
    system,
    agent,
    out: io.stdout,
    color: !json && wantsColor(io.stdout, io.env),
    json,
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  });
  const onInterrupt = () => {
    line(io.stderr, '\nCancelling the turn (press Ctrl-C again to quit at once)…');
    agent.cancel('user');
  };
  process.once('SIGINT', onInterrupt);
  let result: RunResult;
  try {
    result = await options.start();
  } finally {
    process.removeListener('SIGINT', onInterrupt);
    await system.dispose();
    await view.stop();
  }
  if (json) {
    const durationMs = systemClock.now() - startedAt;
    const final: JsonResult = { type: 'result', ...result, sessionId: agent.sessionId, durationMs };
    line(io.stdout, JSON.stringify(final));
  }
  line(ui);
  const cost = result.costUsd !== undefined ? ` · ≈ ${formatDollars(result.costUsd)}` : '';
  line(ui, `Turn ${result.turn} ended: ${result.reason} · ${formatUsage(result.usage)}${cost}`);
  const problem = await turnProblem(agent, result, options.providerName);
  if (problem) line(io.stderr, `agentchart: ${problem} [${result.reason}]`);
  line(ui, `Session log: ${options.sessionFile}`);
  for (const text of options.epilogue ?? []) line(ui, text);
  return exitCodeOf(result);
}

/** A plain sentence about why a turn did not complete, from its `turn.end` event. */
async function turnProblem(
  agent: Agent,
  result: RunResult,
  providerName: string,
): Promise<string | undefined> {
  if (result.reason === 'completed') return undefined;
  const end = agent.log().findLast((event) => isEvent(event, 'turn.end') && event.turn === result.turn);
  const data = end && isEvent(end, 'turn.end') ? end.data : undefined;
  switch (result.reason) {
    case 'model_error': {
      if (!data?.error) return 'the model failed';
      // Loaded only here: select-provider brings in the SDKs, which the demo and replay never need.
      const { describeProviderError } = await import('./select-provider.ts');
      return `the model failed: ${describeProviderError(data.error, providerName)}`;
    }
    case 'canceled':
      return `the turn was cancelled${data?.cause ? ` (${data.cause})` : ''}`;
    case 'max_steps':
      return 'the turn reached its step limit before the model finished; continue it with resume, or raise --max-steps';
    case 'unknown_tool_limit':
      return 'the model kept calling tools that do not exist';
    case 'blocked':
      return 'a pre-step hook blocked the turn';
    case 'max_tokens':
      return "the model's answer hit its output token limit";
    case 'interrupted':
      return 'the turn was interrupted';
  }
}
