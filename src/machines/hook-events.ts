// What the charts know about hooks: which points have hooks (so a chart knows whether to wait), and the
// events the hook actors answer with. The decisions arrive ready to log; the charts write them.
import type { HookDecidedData } from '../session/types.ts';

/** The points whose hooks a turn consults; absent or false: the chart does not wait there. */
export type HookFlags = {
  userMessage?: boolean;
  preStep?: boolean;
  request?: boolean;
  requestError?: boolean;
  preTool?: boolean;
  postTool?: boolean;
  stop?: boolean;
  preCompact?: boolean;
};

/** How many times the stop hooks may refuse the end of one turn; after that they are not asked again. */
export const maxStopRefusals = 3;

/**
 * What the `preTool` hooks decided about one call, after the input they rewrote was checked again. Without
 * `verdict` the hooks had no opinion and the call stays as the check left it.
 */
export type PreToolVerdict = {
  callId: string;
  decisions: HookDecidedData[];
  verdict?: 'run' | 'ask' | 'reject';
  input?: unknown;
  safe?: boolean;
  /** For `reject`: the result the model reads. */
  outcome?: 'error' | 'denied';
  content?: string;
  /** What the hooks added for the model, appended to the call's result when it is committed. */
  context?: string;
  /** A permission decision made after the hooks (a headless denial), logged as `approval.decided`. */
  decision?: { outcome: 'deny'; by: 'headless'; reason: string };
};

export type HookToolEvent =
  | { type: 'hook.preTool'; verdicts: PreToolVerdict[] }
  | { type: 'hook.postTool'; callId: string; decisions: HookDecidedData[]; content: string };

/** One follow-up after the `userMessage` hooks: rewritten, or blocked with a reason. */
export type ScreenedMessage = {
  id: string;
  decisions: HookDecidedData[];
  message: string;
  blocked?: { reason: string };
};

/** What the `request` hooks decided; the model-call actor reads the change back from the log. */
export type HookRequestEvent = { type: 'hook.request'; decisions: HookDecidedData[] };

/** What the `requestError` hooks decided: retry after `retryInMs`, or give up (absent). */
export type HookRequestErrorEvent = {
  type: 'hook.requestError';
  decisions: HookDecidedData[];
  retryInMs?: number;
};

export type HookTurnEvent =
  | { type: 'hook.userMessage'; messages: ScreenedMessage[] }
  | { type: 'hook.stop'; decisions: HookDecidedData[]; refusal?: string }
  | { type: 'hook.preCompact'; decisions: HookDecidedData[] };

/** The context the `sessionStart` hooks added (each hook's own, in order), or `undefined` when none did. */
export function sessionStartContext(decisions: readonly HookDecidedData[]): string | undefined {
  const added = decisions.flatMap((decision) => (decision.message ? [decision.message] : []));
  return added.length > 0 ? added.join('\n\n') : undefined;
}
