// The waterfall: the hooks of one point run in order, each seeing the value as the one before left it, and
// a decision that ends the point (a denial, a block) stops it. `foldDecisions` reads the same decisions back
// into the point's result, so a live run and a replay (which has only the logged decisions) agree.
import { messageOf } from '../errors/describe-value.ts';
import type {
  Flowing,
  HookAnswer,
  HookBase,
  HookDecidedData,
  HookEntry,
  HookPoint,
  HookRun,
  HookSubject,
} from './hook-types.ts';

/** Points whose hooks only observe: what they answer is logged and changes nothing. */
const observerPoints = new Set<HookPoint>(['preCompact', 'sessionStart', 'sessionEnd']);

/** Whether a decision ends the waterfall: later hooks are not asked. */
export function endsWaterfall(decision: HookDecidedData): boolean {
  if (decision.point === 'preTool') return decision.outcome !== 'pass' && isDenial(decision);
  // Observers (`preCompact`) cannot stop anything, so every one of them is told.
  return decision.outcome === 'block' && !observerPoints.has(decision.point);
}

/** At `preTool` a hook that failed denies (fail closed); elsewhere it has no opinion. */
function isDenial(decision: HookDecidedData): boolean {
  return ['deny', 'block', 'error', 'timeout', 'invalid'].includes(decision.outcome);
}

/** What one hook's run means at its point, with the full new value of whatever it changed. */
export function decide(point: HookPoint, hook: string, run: HookRun, value: Flowing): HookDecidedData {
  if (run.kind !== 'answer') return { point, hook, outcome: run.kind, reason: run.reason };
  const answer: HookAnswer = run.answer ?? {};
  const wrong = point === 'request' ? wrongRequestAnswer(answer, value) : undefined;
  if (wrong !== undefined) return { point, hook, outcome: 'invalid', reason: wrong };
  const reason = {
    ...(answer.reason !== undefined ? { reason: answer.reason } : {}),
    ...(answer.systemMessage !== undefined ? { systemMessage: answer.systemMessage } : {}),
  };
  const changes = changesOf(point, answer, value);
  const changed = Object.keys(changes).length > 0;
  const decision = decisionAt(point, answer.decision);
  const outcome = decision ?? (changed ? 'modify' : 'pass');
  return { point, hook, outcome, ...reason, ...changes };
}

function decisionAt(
  point: HookPoint,
  decision: HookAnswer['decision'],
): HookDecidedData['outcome'] | undefined {
  if (decision === undefined) return undefined;
  if (point === 'preTool') return decision === 'block' ? 'deny' : decision;
  // Elsewhere only a block means something; `allow` is no opinion.
  return decision === 'block' || decision === 'deny' ? 'block' : undefined;
}

/**
 * `request` hooks narrow the tools offered (a name not offered would be a tool the runtime cannot run) and
 * choose among the models the host named.
 */
function wrongRequestAnswer(answer: HookAnswer, value: Flowing): string | undefined {
  const offered = new Set(value.tools ?? []);
  const unknown = (answer.tools ?? []).filter((name) => !offered.has(name));
  if (unknown.length > 0) {
    const names = (value.tools ?? []).join(', ') || 'none';
    return `the hook named tools this step does not offer: ${unknown.join(', ')} (offered: ${names})`;
  }
  if (answer.model !== undefined && !(value.models ?? []).includes(answer.model))
    return `the hook named a model the host did not give: ${answer.model} (known: ${(value.models ?? []).join(', ')})`;
  return undefined;
}

function appended(text: string, extra: string | undefined): string {
  return extra === undefined || extra === '' ? text : `${text}\n\n${extra}`;
}

function changesOf(point: HookPoint, answer: HookAnswer, value: Flowing): Flowing {
  switch (point) {
    case 'preTool':
      // Claude Code's PreToolUse `additionalContext`: read by the model with the call's result.
      return {
        ...(answer.input !== undefined ? { input: answer.input } : {}),
        ...(answer.additionalContext ? { content: answer.additionalContext } : {}),
      };
    case 'postTool': {
      if (answer.content === undefined && answer.additionalContext === undefined) return {};
      return { content: appended(answer.content ?? value.content ?? '', answer.additionalContext) };
    }
    case 'userMessage': {
      if (answer.message === undefined && answer.additionalContext === undefined) return {};
      return { message: appended(answer.message ?? value.message ?? '', answer.additionalContext) };
    }
    case 'request': {
      const changes: Flowing = {};
      if (answer.system !== undefined || answer.additionalContext !== undefined)
        changes.system = appended(answer.system ?? value.system ?? '', answer.additionalContext);
      if (answer.tools !== undefined) changes.tools = answer.tools;
      if (answer.model !== undefined) changes.model = answer.model;
      return changes;
    }
    case 'sessionStart':
      // Each hook's context is its own (they are joined in order), not a value the next hook rewrites.
      return answer.additionalContext ? { message: answer.additionalContext } : {};
    case 'requestError':
      return answer.delayMs !== undefined ? { delayMs: answer.delayMs } : {};
    default:
      return {};
  }
}

/** The value after a decision: what it changed, or the value as it was. */
export function flow(value: Flowing, decision: HookDecidedData): Flowing {
  return {
    ...value,
    ...(decision.input !== undefined ? { input: decision.input } : {}),
    ...(decision.content !== undefined ? { content: decision.content } : {}),
    ...(decision.message !== undefined ? { message: decision.message } : {}),
    ...(decision.system !== undefined ? { system: decision.system } : {}),
    ...(decision.tools !== undefined ? { tools: decision.tools } : {}),
    ...(decision.model !== undefined ? { model: decision.model } : {}),
  };
}

/**
 * Runs the hooks of one point in order (those whose matcher does not match the tool are skipped) and
 * returns one decision per hook asked. `input` is what the first hook is told; each later hook is told the
 * value as the one before left it (`toolInput`, `toolResponse`, `message`).
 */
export async function runWaterfall(
  entries: readonly HookEntry[],
  input: HookBase & Record<string, unknown>,
  subject: HookSubject,
  signal: AbortSignal,
): Promise<HookDecidedData[]> {
  const about = {
    ...(subject.callId !== undefined ? { callId: subject.callId } : {}),
    ...(subject.inboxId !== undefined ? { inboxId: subject.inboxId } : {}),
    ...(subject.attempt !== undefined ? { attempt: subject.attempt } : {}),
  };
  const decisions: HookDecidedData[] = [];
  let value = subject.value;
  for (const entry of entries) {
    if (signal.aborted) break;
    const matchOn = subject.toolName ?? subject.matchOn;
    if (matchOn !== undefined && entry.matches && !entry.matches(matchOn, value.input, input.cwd)) continue;
    const told = { ...input, ...toldValue(input.point, value) };
    let run: HookRun;
    try {
      run = await entry.run(told, signal);
    } catch (error) {
      // Entries do not reject by contract; one that does is a failed hook, not a failed turn.
      run = { kind: 'error', reason: messageOf(error) };
    }
    const decision = { ...decide(input.point, entry.name, run, value), ...about };
    decisions.push(decision);
    value = flow(value, decision);
    if (endsWaterfall(decision)) break;
  }
  return decisions;
}

function toldValue(point: HookPoint, value: Flowing): Record<string, unknown> {
  if (point === 'preTool' || point === 'postTool') {
    const told: Record<string, unknown> = { toolInput: value.input };
    if (point === 'postTool') told.toolResponse = value.content;
    return told;
  }
  if (point === 'userMessage') return { message: value.message };
  if (point === 'request') return { system: value.system, tools: value.tools, model: value.model };
  return {};
}

/** What a `preTool` waterfall decided about a call: its permission and the input it runs with. */
export type PreToolResult = {
  permission: 'pass' | 'allow' | 'ask' | 'deny';
  reason?: string;
  input: unknown;
  /** The hook that denied, for the text the model reads. */
  deniedBy?: string;
  /** What the hooks added for the model (`additionalContext`), in order: appended to the call's result. */
  context?: string;
};

/** Reads a `preTool` waterfall back: deny (or a failed hook) wins, then ask, then allow. */
export function foldPreTool(decisions: readonly HookDecidedData[], input: unknown): PreToolResult {
  const contexts = decisions.flatMap((decision) => (decision.content ? [decision.content] : []));
  let result: PreToolResult = {
    permission: 'pass',
    input,
    ...(contexts.length > 0 ? { context: contexts.join('\n\n') } : {}),
  };
  for (const decision of decisions) {
    if (decision.input !== undefined) result = { ...result, input: decision.input };
    if (isDenial(decision)) {
      const reason = decision.reason ?? `hook ${decision.outcome}`;
      return { permission: 'deny', input: result.input, reason, deniedBy: decision.hook };
    }
    if (decision.outcome === 'ask') result = { ...result, permission: 'ask', ...reasonOf(decision) };
    else if (decision.outcome === 'allow' && result.permission === 'pass')
      result = { ...result, permission: 'allow', ...reasonOf(decision) };
  }
  return result;
}

const reasonOf = (decision: HookDecidedData) =>
  decision.reason !== undefined ? { reason: decision.reason } : {};

/** Reads a `postTool` waterfall back: the result as the last hook that changed it left it. */
export function foldPostTool(decisions: readonly HookDecidedData[], content: string): string {
  return decisions.reduce((value, decision) => decision.content ?? value, content);
}

/**
 * Reads a `requestError` waterfall back: a block gives up (`undefined`), a `delayMs` retries after that
 * long, no opinion keeps the default policy's `retryInMs`. The last hook with an opinion wins.
 */
export function foldRequestError(
  decisions: readonly HookDecidedData[],
  retryInMs: number | undefined,
): number | undefined {
  let delay = retryInMs;
  for (const decision of decisions) {
    if (decision.outcome === 'block') return undefined;
    if (decision.delayMs !== undefined) delay = decision.delayMs;
  }
  return delay;
}

/** Reads a blocking point's waterfall back (`userMessage`, `stop`): the block's reason, or the new message. */
export function foldBlock(
  decisions: readonly HookDecidedData[],
  message: string,
): { blocked: boolean; reason?: string; message: string } {
  let current = message;
  for (const decision of decisions) {
    if (decision.message !== undefined) current = decision.message;
    if (decision.outcome === 'block')
      return { blocked: true, message: current, ...(decision.reason ? { reason: decision.reason } : {}) };
  }
  return { blocked: false, message: current };
}

/** Reads a `request` waterfall back: the system prompt and tools as the last hook that changed them left them. */
export function foldRequest(decisions: readonly HookDecidedData[]): {
  system?: string;
  tools?: string[];
  model?: string;
} {
  const changes: { system?: string; tools?: string[]; model?: string } = {};
  for (const decision of decisions) {
    if (decision.system !== undefined) changes.system = decision.system;
    if (decision.tools !== undefined) changes.tools = decision.tools;
    if (decision.model !== undefined) changes.model = decision.model;
  }
  return changes;
}
