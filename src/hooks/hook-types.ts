// The vocabulary of hooks: what a hook is told at each point, what it may answer, and how the runtime
// keeps the hooks of a point. In-process hooks speak these camelCase shapes; command hooks speak Claude
// Code's snake_case JSON (see command-hook.ts), translated to the same answer.
import type { PermissionMode } from '../permissions/modes.ts';
import { type HookDecidedData, type HookPoint, hookPoints } from '../session/types.ts';

export { type HookDecidedData, type HookOutcome, type HookPoint, hookPoints } from '../session/types.ts';

/** Every point is consulted by a running agent now (issue 12); the name stays for the code that reads it. */
export const wiredHookPoints = hookPoints;
export type WiredHookPoint = (typeof wiredHookPoints)[number];

/** What every hook is told, besides what its point adds. */
export type HookBase = {
  point: HookPoint;
  sessionId: string;
  cwd: string;
  turn: number;
  step: number;
  /** The agent's permission mode when the hook is asked (a command hook reads Claude Code's name for it). */
  permissionMode?: PermissionMode;
  /**
   * Writes the session's transcript in Claude Code's JSONL (see claude-transcript.ts) outside the workspace
   * and resolves with its path; a command hook calls it just before it starts (`transcript_path`).
   */
  transcriptPath?: () => Promise<string>;
};

/** What each point adds to `HookBase`. */
export type HookInputs = {
  /**
   * The agent is set up (`startup`: a new session, `resume`, `fork`), before its first turn. An observer that
   * may add context (`additionalContext`), which the model reads before the session's next input.
   */
  sessionStart: { source: 'startup' | 'resume' | 'fork' };
  /** The agent is being disposed (its turn, if any, has ended). An observer, bounded in time. */
  sessionEnd: { reason: 'disposed' };
  /** A follow-up about to start a turn. */
  userMessage: { message: string };
  /** A valid call the permission rules did not deny, before it runs. */
  preTool: { callId: string; toolName: string; toolInput: unknown };
  /** A call that ran (outcome `ok` or `error`), before its result is committed. */
  postTool: { callId: string; toolName: string; toolInput: unknown; toolResponse: string; isError: boolean };
  /** A step is about to begin (after the single `preStep` function, if any, allowed it). */
  preStep: Record<never, never>;
  /**
   * A step's model request is about to be made: the system prompt, the names of the tools offered and the
   * model (with `models`, the names it may switch to). A hook may replace the system prompt (`system`),
   * append to it (`additionalContext`), offer fewer tools (`tools`, a subset of those named) or send the
   * request to another model (`model`, one of `models`).
   */
  request: { system: string; tools: string[]; model: string; models: string[] };
  /**
   * A model request failed. `retryInMs` is what the default policy decided (absent: give up). A hook may
   * answer `delayMs` (retry after that long) or `decision: 'block'` (give up); attempts stay bounded by
   * `limits.maxAttempts`.
   */
  requestError: {
    error: { kind: string; message: string; retryable: boolean; status?: number; retryAfterMs?: number };
    attempt: number;
    retryInMs?: number;
  };
  /** The model ended the turn; `refusals` says how many times this turn's stop hooks refused already. */
  stop: { text: string; refusals: number };
  /**
   * A compaction is about to run (`auto`: the window filled; `manual`: `agent.compact`). An observer: its
   * decisions are logged, and the compaction runs whatever it answers (as in Claude Code).
   */
  preCompact: { trigger: 'auto' | 'manual'; instructions?: string };
  /** The same as `stop`, for the turn of a subagent (started by the `task` tool); `parent` is its parent's session. */
  subagentStop: { text: string; refusals: number; parent: string };
};

export type HookInput<Point extends WiredHookPoint> = HookBase & HookInputs[Point];

/**
 * What a hook may answer; `undefined` (or nothing) is no opinion. Which fields count depends on the point:
 * - `preTool`: `decision` `allow` (run without asking), `ask`, `deny` (with `reason`, which the model reads);
 *   `input` replaces the tool input (checked against the tool's schema and the permission rules again);
 *   `additionalContext` is appended to the call's result, where the model reads it.
 * - `postTool`: `content` replaces the result the model reads; `additionalContext` is appended to it.
 * - `userMessage`: `decision: 'block'` drops the message and ends the turn `blocked` with `reason`;
 *   `message` rewrites it; `additionalContext` is appended to it.
 * - `request`: `system` replaces the system prompt, `additionalContext` is appended to it, `tools` narrows
 *   the tools offered; `decision: 'block'` ends the waterfall (later hooks are not asked), nothing more.
 * - `stop`: `decision: 'block'` refuses the end of the turn; `reason` is the message that starts another step.
 */
export type HookAnswer = {
  decision?: 'allow' | 'ask' | 'deny' | 'block';
  reason?: string;
  input?: Record<string, unknown>;
  content?: string;
  message?: string;
  additionalContext?: string;
  /** `requestError`: retry after this many milliseconds. */
  delayMs?: number;
  /** `request`: the system prompt of this step's request. */
  system?: string;
  /** `request`: the tools this step's request offers, by name (a subset of those the hook was told). */
  tools?: string[];
  /** `request`: the model this step's request goes to, by name (one of `models` the hook was told). */
  model?: string;
  /** A message for the person, never for the model (Claude Code's `systemMessage`); logged with the decision. */
  systemMessage?: string;
};

/**
 * An in-process hook. Contract: may be async; gets a signal that aborts when the turn is cancelled or the
 * hook's time is up; a throw, a timeout or an answer that is not a `HookAnswer` is logged as `error`,
 * `timeout` or `invalid` and counts as no opinion, except at `preTool`, where it denies the call.
 */
export type HookFunction<Point extends WiredHookPoint> = (
  input: HookInput<Point>,
  options: { signal: AbortSignal },
) => HookAnswer | undefined | Promise<HookAnswer | undefined>;

/** A hook with a name (logged as `hook`) and its own time limit (default `defaultHookTimeoutMs`). */
export type NamedHook<Point extends WiredHookPoint> = {
  name?: string;
  timeoutMs?: number;
  run: HookFunction<Point>;
};

/**
 * A command hook: `command` runs with `bash -c` in the workspace, reads the hook's JSON (Claude Code's
 * field names) on stdin and answers JSON on stdout; exit code 2 blocks with stderr as the reason.
 */
export type CommandHook = {
  type: 'command';
  command: string;
  /** Default `defaultHookTimeoutMs`; the command and everything it started is stopped then. */
  timeoutMs?: number;
  /**
   * Claude Code's `matcher`: at `preTool`/`postTool` the tools it is about, at `sessionStart` the sources, at
   * `preCompact` the triggers. Exact names (`Bash`, `Edit|Write`, `startup,resume`) or, with any other
   * character, an unanchored regular expression (`mcp__github__.*`, `^Edit$`); empty or `*` for all.
   */
  matcher?: string;
  /** Exec form: `command` is the program, run with these arguments and no shell. */
  args?: string[];
  /** Claude Code's `async`: the hook runs, but what it answers decides nothing. */
  async?: boolean;
  /** Claude Code's `if` (`preTool`/`postTool`): a permission rule; the hook runs only for calls it matches. */
  if?: string;
};

/** The hooks of a system, by point, run in order as a waterfall. */
export type Hooks = {
  [Point in WiredHookPoint]?: Array<HookFunction<Point> | NamedHook<Point> | CommandHook>;
};

/** How long a hook may take when it names no limit (Claude Code's default was 60 s too; it is 600 s now). */
export const defaultHookTimeoutMs = 60_000;

/** What running one hook produced, before the waterfall turns it into a logged decision. */
export type HookRun =
  | { kind: 'answer'; answer: HookAnswer | undefined }
  | { kind: 'error' | 'timeout' | 'invalid'; reason: string };

/**
 * One hook as the runtime keeps it, whatever its kind. Contract: `run` never rejects (a failure is a
 * `HookRun`), honours `signal`, and stops everything it started when the signal aborts.
 */
export type HookEntry = {
  name: string;
  /**
   * For command hooks: whether the hook is about this consultation (Claude Code's `matcher` and `if`), told
   * the tool's name (or the source, the trigger), the tool input as it flows and the consulting agent's
   * workspace, against which the `if` rule's relative paths are read.
   */
  matches?: (value: string, input: unknown, cwd: string) => boolean;
  run: (input: HookBase & Record<string, unknown>, signal: AbortSignal) => Promise<HookRun>;
};

/** Every hook of a session by point, in-process and command hooks merged (in-process first). */
export type HookTable = Partial<Record<HookPoint, HookEntry[]>>;

/** The value a point's hooks pass along: the tool input, the result text or the message. */
export type Flowing = {
  input?: unknown;
  content?: string;
  message?: string;
  delayMs?: number;
  system?: string;
  tools?: string[];
  model?: string;
  /** `request`: the model names a hook may choose from (not logged; it only checks answers). */
  models?: string[];
};

/** What one consultation is about: the call or queued input, and the value its hooks start from. */
export type HookSubject = {
  callId?: string;
  toolName?: string;
  /** What a matcher selects on where no tool is involved: `sessionStart`'s source, `preCompact`'s trigger. */
  matchOn?: string;
  inboxId?: string;
  attempt?: number;
  value: Flowing;
};

/**
 * Answers one consultation of a point with the decisions of its hooks, in order. Live, it runs them;
 * in a replay it reads them from the recorded log. Contract: never rejects.
 */
export type HookConsult = (
  input: HookBase & Record<string, unknown>,
  subject: HookSubject,
  signal: AbortSignal,
) => Promise<HookDecidedData[]>;
