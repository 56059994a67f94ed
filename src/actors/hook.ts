import { fromCallback } from 'xstate';
import { messageOf } from '../errors/describe-value.ts';
import type { ProviderErrorData } from '../errors/provider-error.ts';
import type { HookBase, HookConsult, HookDecidedData, HookPoint } from '../hooks/hook-types.ts';
import { foldBlock, foldPostTool, foldRequestError } from '../hooks/waterfall.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type {
  HookRequestErrorEvent,
  HookToolEvent,
  HookTurnEvent,
  PreToolVerdict,
  ScreenedMessage,
} from '../machines/hook-events.ts';
import type { HookCallInput } from '../machines/tool-batch-hooks.ts';
import type { PermissionMode } from '../permissions/modes.ts';
import type { DependenciesOf } from './dependencies.ts';
import { preToolVerdict } from './pre-tool-verdict.ts';
import type { ToolCheckDeps } from './tool-check.ts';

export type HookDeps = {
  sessionId: string;
  cwd: string;
  /** The agent's permission mode now, which every hook is told. */
  permissionMode?: () => PermissionMode;
  /** Writes the session's transcript and resolves with its path (live only; see HookBase). */
  transcriptPath?: () => Promise<string>;
  /** How each point is consulted: its hooks run live, or a replay reads the recorded decisions. */
  consult: (point: HookPoint) => HookConsult;
  /** The tools and permissions a rewritten tool input is checked against again. */
  check: ToolCheckDeps;
  /** The text of the model's last answer, which the `stop` hooks are told. */
  lastAnswer: () => string;
  /** What a step's request is about to offer: the `request` hooks are told it. */
  request: () => { system: string; tools: string[]; model: string; models: string[] };
  /** The parent's session when this agent is a subagent: its turns end through `subagentStop` instead of `stop`. */
  parent?: string;
};

type Meta = AgentKeyed & { turn: number; step: number };

/**
 * Actor logic for one hook wait: `work` runs with a signal that aborts when the chart stops the actor
 * (a cancel, a dispose), which stops a command hook's processes; a stopped actor sends nothing. `work`
 * must not reject; `fallback` is the answer if it does anyway.
 */
export function hookWait<Input extends AgentKeyed, Event extends { type: string }>(
  depsOf: DependenciesOf<HookDeps>,
  work: (deps: HookDeps, input: Input, signal: AbortSignal) => Promise<Event>,
  fallback: (input: Input, reason: string) => Event,
) {
  return fromCallback<{ type: 'noop' }, Input>(({ input, sendBack }) => {
    const controller = new AbortController();
    let live = true;
    Promise.resolve()
      .then(() => work(depsOf(input.agentKey), input, controller.signal))
      .catch((error: unknown) => fallback(input, messageOf(error)))
      .then((event) => {
        if (live) sendBack(event);
      });
    return () => {
      live = false;
      controller.abort();
    };
  });
}

export const base = (deps: HookDeps, point: HookPoint, meta: { turn: number; step: number }): HookBase => ({
  point,
  sessionId: deps.sessionId,
  cwd: deps.cwd,
  turn: meta.turn,
  step: meta.step,
  ...(deps.permissionMode ? { permissionMode: deps.permissionMode() } : {}),
  ...(deps.transcriptPath ? { transcriptPath: deps.transcriptPath } : {}),
});

export const failed = (
  point: HookPoint,
  reason: string,
  about: Partial<HookDecidedData> = {},
): HookDecidedData => ({
  point,
  hook: '(runtime)',
  outcome: 'error',
  reason,
  ...about,
});

/** The `preTool` wait: each call is put to the hooks in model order; a rewritten input is checked again. */
export function createPreToolHookActor(depsOf: DependenciesOf<HookDeps>) {
  return hookWait<Meta & { calls: HookCallInput[] }, HookToolEvent>(
    depsOf,
    async (deps, input, signal) => {
      const verdicts: PreToolVerdict[] = [];
      for (const call of input.calls) {
        const told = {
          ...base(deps, 'preTool', input),
          callId: call.callId,
          toolName: call.name,
          toolInput: call.input,
        };
        const subject = { callId: call.callId, toolName: call.name, value: { input: call.input } };
        const decisions = await deps.consult('preTool')(told, subject, signal);
        verdicts.push(preToolVerdict(deps.check, call, decisions));
      }
      return { type: 'hook.preTool', verdicts };
    },
    (input, reason) => ({
      type: 'hook.preTool',
      verdicts: input.calls.map((call) =>
        preToolVerdict(depsOf(input.agentKey).check, call, [
          failed('preTool', reason, { callId: call.callId }),
        ]),
      ),
    }),
  );
}

/** The `postTool` wait of one finished call: the result as the hooks leave it. */
export function createPostToolHookActor(depsOf: DependenciesOf<HookDeps>) {
  type Input = Meta & HookCallInput & { content: string; isError: boolean };
  return hookWait<Input, HookToolEvent>(
    depsOf,
    async (deps, input, signal) => {
      const told = {
        ...base(deps, 'postTool', input),
        callId: input.callId,
        toolName: input.name,
        toolInput: input.input,
        toolResponse: input.content,
        isError: input.isError,
      };
      const subject = {
        callId: input.callId,
        toolName: input.name,
        value: { input: input.input, content: input.content },
      };
      const decisions = await deps.consult('postTool')(told, subject, signal);
      return {
        type: 'hook.postTool',
        callId: input.callId,
        decisions,
        content: foldPostTool(decisions, input.content),
      };
    },
    (input, reason) => ({
      type: 'hook.postTool',
      callId: input.callId,
      decisions: [failed('postTool', reason, { callId: input.callId })],
      content: input.content,
    }),
  );
}

/** The `userMessage` wait: each follow-up is put to the hooks, which may rewrite or block it. */
export function createUserMessageHookActor(depsOf: DependenciesOf<HookDeps>) {
  type Input = AgentKeyed & { turn: number; messages: { id: string; message: string }[] };
  return hookWait<Input, HookTurnEvent>(
    depsOf,
    async (deps, input, signal) => {
      const messages: ScreenedMessage[] = [];
      for (const { id, message } of input.messages) {
        const told = { ...base(deps, 'userMessage', { turn: input.turn, step: 0 }), message };
        const decisions = await deps.consult('userMessage')(
          told,
          { inboxId: id, value: { message } },
          signal,
        );
        const folded = foldBlock(decisions, message);
        const blocked = folded.blocked ? { blocked: { reason: folded.reason ?? 'blocked by a hook' } } : {};
        messages.push({ id, decisions, message: folded.message, ...blocked });
      }
      return { type: 'hook.userMessage', messages };
    },
    (input, reason) => ({
      type: 'hook.userMessage',
      messages: input.messages.map(({ id, message }) => ({
        id,
        message,
        decisions: [failed('userMessage', reason, { inboxId: id })],
      })),
    }),
  );
}

/**
 * The `stop` wait: the hooks may refuse the end of the turn with a message for the model. A subagent's turn
 * asks the `subagentStop` hooks instead (Claude Code's SubagentStop).
 */
export function createStopHookActor(depsOf: DependenciesOf<HookDeps>) {
  return hookWait<Meta & { refusals: number }, HookTurnEvent>(
    depsOf,
    async (deps, input, signal) => {
      const point = deps.parent === undefined ? 'stop' : 'subagentStop';
      const parent = deps.parent === undefined ? {} : { parent: deps.parent };
      const told = {
        ...base(deps, point, input),
        text: deps.lastAnswer(),
        refusals: input.refusals,
        ...parent,
      };
      const decisions = await deps.consult(point)(told, { value: {} }, signal);
      const folded = foldBlock(decisions, '');
      if (!folded.blocked) return { type: 'hook.stop', decisions };
      return { type: 'hook.stop', decisions, refusal: folded.reason ?? 'A stop hook asked you to continue.' };
    },
    (_input, reason) => ({ type: 'hook.stop', decisions: [failed('stop', reason)] }),
  );
}

/**
 * The `requestError` wait: the hooks may retry a failed request after a delay they name, or give up, in
 * place of the retry policy. Attempts stay bounded: past `maxAttempts` no hook makes the step retry.
 */
export function createRequestErrorHookActor(depsOf: DependenciesOf<HookDeps>) {
  type Input = Meta & {
    attempt: number;
    error: ProviderErrorData;
    retryInMs: number | undefined;
    maxAttempts: number;
  };
  return hookWait<Input, HookRequestErrorEvent>(
    depsOf,
    async (deps, input, signal) => {
      const { attempt, error, retryInMs } = input;
      const told = {
        ...base(deps, 'requestError', input),
        error,
        attempt,
        ...(retryInMs !== undefined ? { retryInMs } : {}),
      };
      const decisions = await deps.consult('requestError')(told, { attempt, value: {} }, signal);
      const delay = attempt >= input.maxAttempts ? undefined : foldRequestError(decisions, retryInMs);
      return { type: 'hook.requestError', decisions, ...(delay !== undefined ? { retryInMs: delay } : {}) };
    },
    (input, reason) => ({
      type: 'hook.requestError',
      decisions: [failed('requestError', reason)],
      ...(input.retryInMs !== undefined ? { retryInMs: input.retryInMs } : {}),
    }),
  );
}

/** The `preCompact` wait: observers told a compaction is about to run; the compaction runs after them. */
export function createPreCompactHookActor(depsOf: DependenciesOf<HookDeps>) {
  type Input = Meta & { trigger: 'auto' | 'manual'; instructions?: string };
  return hookWait<Input, HookTurnEvent>(
    depsOf,
    async (deps, input, signal) => {
      const instructions = input.instructions !== undefined ? { instructions: input.instructions } : {};
      const told = { ...base(deps, 'preCompact', input), trigger: input.trigger, ...instructions };
      return {
        type: 'hook.preCompact',
        decisions: await deps.consult('preCompact')(told, { matchOn: input.trigger, value: {} }, signal),
      };
    },
    (_input, reason) => ({ type: 'hook.preCompact', decisions: [failed('preCompact', reason)] }),
  );
}
