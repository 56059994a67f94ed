// The `request` wait: before a step's model request, the hooks may change its system prompt or narrow its
// tools. Their decisions are logged before the request; the model-call actor reads the change back from
// the log (`requestChanges`), so a resume or a replay sends the same bytes without running a hook.
import type { HookDecidedData } from '../hooks/hook-types.ts';
import { foldRequest } from '../hooks/waterfall.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { HookRequestEvent } from '../machines/hook-events.ts';
import type { ModelRequest, Provider } from '../providers/types.ts';
import { isEvent, type LogEvent } from '../session/types.ts';
import type { DependenciesOf } from './dependencies.ts';
import { base, failed, type HookDeps, hookWait } from './hook.ts';

export function createRequestHookActor(depsOf: DependenciesOf<HookDeps>) {
  return hookWait<AgentKeyed & { turn: number; step: number }, HookRequestEvent>(
    depsOf,
    async (deps, input, signal) => {
      const { system, tools, model, models } = deps.request();
      const told = { ...base(deps, 'request', input), system, tools, model, models };
      const value = { system, tools, model, models: [model, ...models] };
      const decisions = await deps.consult('request')(told, { value }, signal);
      return { type: 'hook.request', decisions };
    },
    (_input, reason) => ({ type: 'hook.request', decisions: [failed('request', reason)] }),
  );
}

/**
 * The `request` decisions of the step the log is in: those after its last `step.start` (a retry or an
 * overflow compaction within the step keeps them).
 */
function stepRequestDecisions(events: readonly LogEvent[]): HookDecidedData[] {
  const decisions: HookDecidedData[] = [];
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!;
    if (event.type === 'step.start') break;
    if (isEvent(event, 'hook.decided') && event.data.point === 'request') decisions.unshift(event.data);
  }
  return decisions;
}

/** The request as the step's logged `request` decisions change it; the same object when they change nothing. */
export function requestChanges(events: readonly LogEvent[], request: ModelRequest): ModelRequest {
  const decisions = stepRequestDecisions(events);
  if (decisions.length === 0) return request;
  const { system, tools } = foldRequest(decisions);
  if (system === undefined && tools === undefined) return request;
  const offered = tools === undefined ? undefined : new Set(tools);
  return {
    ...request,
    ...(system !== undefined ? { system } : {}),
    ...(offered !== undefined ? { tools: request.tools.filter((spec) => offered.has(spec.name)) } : {}),
  };
}

/**
 * The step's model: the agent's own, or the one the step's logged `request` decisions chose among
 * `models` (a name the host no longer gives, as in a replay, falls back to the agent's own). The model-call
 * actor streams through it unchanged.
 */
export function routedProvider(
  own: Provider,
  models: Readonly<Record<string, Provider>>,
  events: () => readonly LogEvent[],
): Provider {
  if (Object.keys(models).length === 0) return own;
  const chosen = (): Provider => {
    const name = foldRequest(stepRequestDecisions(events())).model;
    return (name !== undefined && name !== own.model ? models[name] : undefined) ?? own;
  };
  return {
    name: own.name,
    model: own.model,
    get contextWindow() {
      return chosen().contextWindow;
    },
    stream: (request, signal) => chosen().stream(request, signal),
  };
}
