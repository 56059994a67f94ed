// The hook vocabulary the log speaks: every hook point, how one hook answered, and what `hook.decided`
// records of it. Its own file so the log's event types (types.ts) stay readable.

/** Every hook point, in the order a session meets them (docs/hooks-and-settings.md). */
export const hookPoints = [
  'sessionStart',
  'userMessage',
  'preStep',
  'request',
  'requestError',
  'preTool',
  'postTool',
  'stop',
  'subagentStop',
  'preCompact',
  'sessionEnd',
] as const;

export type HookPoint = (typeof hookPoints)[number];

/**
 * How one hook answered: `pass` (no opinion), `modify` (changed the value and nothing else), a decision
 * (`allow`, `ask`, `deny` for tools; `block` elsewhere), or a failure (`error` threw or exited non-zero,
 * `timeout`, `invalid` answered something unreadable), which is no opinion except at `preTool` (deny).
 */
export type HookOutcome =
  | 'pass'
  | 'modify'
  | 'allow'
  | 'ask'
  | 'deny'
  | 'block'
  | 'error'
  | 'timeout'
  | 'invalid';

export type HookDecidedData = {
  point: HookPoint;
  /** Which hook: a function's name (or `<point>[<index>]`), or a command hook's command line. */
  hook: string;
  outcome: HookOutcome;
  reason?: string;
  /** The tool call the hook was about (`preTool`, `postTool`). */
  callId?: string;
  /** `preTool`: the tool input as this hook rewrote it. */
  input?: unknown;
  /** `postTool`: the tool result as this hook replaced or annotated it; `preTool`: context for the result. */
  content?: string;
  /** `userMessage`: the message as this hook rewrote it. */
  message?: string;
  /** `userMessage`: the queued input the hook was about. */
  inboxId?: string;
  /** `requestError`: the failed attempt the hook was about. */
  attempt?: number;
  /** `requestError`: retry after this many milliseconds (a block gives up instead). */
  delayMs?: number;
  /** `request`: the system prompt of the step's request as this hook left it. */
  system?: string;
  /** `request`: the tools the step's request offers, by name, as this hook left them. */
  tools?: string[];
  /** `request`: the model the step's request goes to, by name, as this hook left it. */
  model?: string;
  /** What the hook told the person (Claude Code's `systemMessage`); the model never reads it. */
  systemMessage?: string;
};
