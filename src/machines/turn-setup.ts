// The turn chart's setup: the actors it spawns (placeholders the runtime replaces through `provide()`),
// and the named actions and guards its states refer to. The state tree is in `turn.ts`.
import { assertEvent, assign, enqueueActions, fromCallback, setup, spawnChild } from 'xstate';
import { extended } from '../core/extended.ts';
import { addUsage } from '../providers/types.ts';
import type { AgentKeyed } from './agent-key.ts';
import { compactionDue, compactResultOf } from './compaction-types.ts';
import { maxStopRefusals } from './hook-events.ts';
import { resultSenders } from './inbox.ts';
import { logNothing } from './log-action.ts';
import { parentOf } from './parent.ts';
import { type StepResumeEvent, stepMachine } from './step.ts';
import { claimEntries, outputCheckedEntry, stepDue, stepRecord } from './turn-entries.ts';
import { screenedEntries, screenedFollowups, stopEntries } from './turn-hooks.ts';
import type {
  OutputCheckInput,
  TurnCompactedEvent,
  TurnContext,
  TurnEvent,
  TurnInput,
  TurnOutput,
} from './turn-types.ts';

export const turnSetup = setup({
  types: {} as { context: TurnContext; events: TurnEvent; input: TurnInput; output: TurnOutput },
  actors: {
    step: stepMachine,
    // Placeholders: the runtime provides the real I/O actors (src/actors) through `provide()`.
    preStepHook: fromCallback<{ type: 'noop' }, AgentKeyed & { turn: number; step: number }>(() => {}),
    logFlush: fromCallback<{ type: 'noop' }, AgentKeyed>(() => {}),
    userMessageHook: fromCallback<
      { type: 'noop' },
      AgentKeyed & { turn: number; messages: { id: string; message: string }[] }
    >(() => {}),
    preCompactHook: fromCallback<
      { type: 'noop' },
      AgentKeyed & { turn: number; step: number; trigger: 'auto' | 'manual'; instructions?: string }
    >(() => {}),
    stopHook: fromCallback<{ type: 'noop' }, AgentKeyed & { turn: number; step: number; refusals: number }>(
      () => {},
    ),
    outputCheck: fromCallback<{ type: 'noop' }, OutputCheckInput>(() => {}),
  },
  actions: {
    log: logNothing,
    markToolsChanged: assign({ toolsChanged: true }),
    /**
     * Next-step input the agent forwarded: claimed before the next step. A background child's result among
     * it means the turn has heard from that child.
     */
    holdNextStep: assign(({ context, event }) => {
      assertEvent(event, 'inbox.nextStep');
      const heard = resultSenders(event.items);
      return {
        pending: [...context.pending, ...event.items],
        ...(heard.length > 0 ? { owed: context.owed.filter((id) => !heard.includes(id)) } : {}),
      };
    }),
    oweAgent: assign(({ context, event }) => {
      assertEvent(event, 'agents.owe');
      return { owed: context.owed.includes(event.id) ? context.owed : [...context.owed, event.id] };
    }),
    hearAgent: assign(({ context, event }) => {
      assertEvent(event, 'agents.heard');
      return { owed: context.owed.filter((id) => id !== event.id) };
    }),
    /** Requests made while one is being served share its result. */
    queueCompaction: assign(({ context, event }) => {
      assertEvent(event, 'turn.compact');
      const request =
        context.compacting.request ?? (event.instructions ? { instructions: event.instructions } : {});
      return { compacting: { ...context.compacting, request } };
    }),
    /** Logs claimed input as user messages, so the model sees only what the log holds. */
    claimFollowups: enqueueActions(({ context, enqueue }) => {
      for (const entry of claimEntries(context.turn, context.followups))
        enqueue({ type: 'log', params: entry });
    }),
    /** `cancel(…, { clearInbox })` also drops next-step input the turn holds, and logs that it did. */
    clearPendingIfAsked: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'turn.cancel');
      if (!event.clearInbox || context.pending.length === 0) return;
      const ids = context.pending.map((item) => item.id);
      enqueue({ type: 'log', params: { type: 'inbox.cleared', turn: context.turn, data: { ids } } });
      enqueue.assign({ pending: [] });
    }),
    /** A cancel while no step runs ends the turn `canceled` at once (a running step is told first). */
    cancelBeforeStep: enqueueActions(({ event, enqueue }) => {
      assertEvent(event, 'turn.cancel');
      enqueue('clearPendingIfAsked');
      enqueue.assign({ cancelCause: event.cause, reason: 'canceled' });
    }),
    /** A cancel while the step actor works: it is told, and reports `step.done` when it has stopped. */
    cancelStep: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'turn.cancel');
      enqueue('clearPendingIfAsked');
      enqueue.assign({ cancelCause: context.cancelCause ?? event.cause });
      enqueue.sendTo('step', { type: 'step.cancel' });
    }),
    // One step actor serves every step of the turn; `step.begin` starts each one.
    spawnStep: spawnChild('step', {
      id: 'step',
      input: ({ context }) => extended(context.step, { agentKey: context.agentKey, turn: context.turn }),
    }),
    /** A turn a stopped process left waiting: its step resumes where the log says, nothing logged twice. */
    resumeStep: enqueueActions(({ event, enqueue }) => {
      assertEvent(event, 'turn.resume');
      const { step, usage, consecutiveUnknown, answer, calls } = event;
      enqueue('spawnStep');
      enqueue.assign({ stepCount: step, usage, consecutiveUnknown });
      enqueue.sendTo('step', { type: 'step.resume', step, answer, calls } satisfies StepResumeEvent);
    }),
    /**
     * A turn a stopped process left waiting for its background children: it decides again (waits, or takes
     * the mail that came meanwhile) with the steps, cost and children the log says it had.
     */
    resumeWaiting: enqueueActions(({ event, enqueue }) => {
      assertEvent(event, 'turn.resumeWaiting');
      const { step, usage, owed } = event;
      enqueue('spawnStep');
      enqueue.assign({ stepCount: step, usage, owed, lastOutcome: 'final' });
    }),
    beginStep: enqueueActions(({ context, event, enqueue }) => {
      enqueue.assign({ stepCount: context.stepCount + 1 });
      // Tool lists that changed before this step (see `applyTools`) reach the step with its begin.
      const update = event.type === 'hook.allow' ? event.tools : undefined;
      const tools = update ? { tools: { toolNames: update.toolNames, systemHash: update.systemHash } } : {};
      enqueue.sendTo('step', { type: 'step.begin', step: context.stepCount + 1, ...tools });
    }),
    /**
     * Tool lists that changed since the last step are logged, and the next step offers the new tools; then
     * what the `preStep` hook list decided.
     */
    applyTools: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, ['hook.allow', 'hook.veto']);
      const at = { turn: context.turn, step: context.stepCount + 1 };
      for (const { server, tools } of event.tools?.changes ?? [])
        enqueue({ type: 'log', params: { type: 'mcp.tools', ...at, data: { server, tools } } });
      for (const data of event.decisions ?? [])
        enqueue({ type: 'log', params: { type: 'hook.decided', ...at, data } });
      if (event.tools === undefined) return;
      const { toolNames, systemHash } = event.tools;
      enqueue.assign({ step: { ...context.step, toolNames, systemHash } });
    }),
    /** The `preStep` hooks vetoed the step: the turn ends `blocked` with their reason. */
    vetoStep: assign(({ context, event }) => {
      assertEvent(event, 'hook.veto');
      return {
        hookVerdicts: { ...context.hookVerdicts, vetoReason: event.reason },
        reason: 'blocked' as const,
      };
    }),
    claimPending: enqueueActions(({ context, enqueue }) => {
      for (const entry of claimEntries(context.turn, context.pending))
        enqueue({ type: 'log', params: entry });
      enqueue.assign({ pending: [] });
    }),
    /** Logs what the `userMessage` hooks decided; the follow-ups they did not block are claimed as rewritten. */
    claimScreened: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'hook.userMessage');
      for (const entry of screenedEntries(context.turn, event.messages))
        enqueue({ type: 'log', params: entry });
      enqueue.assign({ followups: screenedFollowups(context.followups, event.messages) });
    }),
    /** Every follow-up was blocked: the turn ends `blocked` with the first reason. */
    blockTurn: assign(({ context, event }) => {
      assertEvent(event, 'hook.userMessage');
      const blocked = event.messages.find((message) => message.blocked);
      const vetoReason = blocked?.blocked?.reason ?? 'blocked by a hook';
      return { reason: 'blocked' as const, hookVerdicts: { ...context.hookVerdicts, vetoReason } };
    }),
    /** The stop hooks refused the end of the turn: their message is logged and starts another step. */
    refuseStop: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'hook.stop');
      for (const entry of stopEntries(context, event)) enqueue({ type: 'log', params: entry });
      const stopRefusals = context.hookVerdicts.stopRefusals + 1;
      enqueue.assign({ hookVerdicts: { ...context.hookVerdicts, stopRefusals }, lastOutcome: 'continue' });
    }),
    /** The `preCompact` hooks are observers: their decisions are logged and the compaction runs. */
    logPreCompact: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'hook.preCompact');
      for (const data of event.decisions)
        enqueue({
          type: 'log',
          params: { type: 'hook.decided', turn: context.turn, step: context.stepCount, data },
        });
    }),
    allowStop: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'hook.stop');
      for (const entry of stopEntries(context, event)) enqueue({ type: 'log', params: entry });
      enqueue.assign({ reason: 'completed' });
    }),
    /** The check of the final answer is logged first: the model reads a failed one as its next message. */
    logOutputCheck: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'output.checked');
      enqueue({ type: 'log', params: outputCheckedEntry(context, event) });
    }),
    acceptOutput: assign({ output: ({ context }) => ({ ...context.output!, accepted: true }) }),
    /** The answer failed its check and retries are left: the model answers again in another step. */
    retryOutput: assign({
      output: ({ context }) => ({ ...context.output!, failures: context.output!.failures + 1 }),
      lastOutcome: 'continue' as const,
    }),
    /** The answer failed its check once more than the retries allow: the turn ends `invalid_output`. */
    rejectOutput: assign({
      output: ({ context }) => ({ ...context.output!, failures: context.output!.failures + 1 }),
      reason: 'invalid_output' as const,
    }),
    recordStep: assign(({ context, event }) => {
      assertEvent(event, 'step.done');
      return stepRecord(context, event.output);
    }),
    /** Starts the compaction a request or the threshold asks for; a host's request takes precedence. */
    beginCompaction: enqueueActions(({ context, enqueue }) => {
      const { request } = context.compacting;
      const serving = request ? { trigger: 'manual' as const, ...request } : { trigger: 'auto' as const };
      enqueue.assign({ compacting: { ...context.compacting, serving, request: undefined } });
      enqueue.sendTo('step', { type: 'step.begin', step: context.stepCount + 1, compaction: serving });
    }),
    /** A failed compaction fails the turn like a failed step; a host's request learns how it ended. */
    recordCompaction: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'step.done');
      const { output } = event;
      if (context.compacting.serving?.trigger === 'manual') {
        enqueue.sendTo(parentOf, {
          type: 'turn.compacted',
          result: compactResultOf(output),
        } satisfies TurnCompactedEvent);
      }
      const failed = output.outcome === 'model_error';
      // A canceled or failed compaction did not happen: the next chance tries again.
      const ran = output.outcome === 'compacted' || output.outcome === 'nothing_to_compact';
      enqueue.assign({
        compacting: { ...context.compacting, serving: undefined, tried: context.compacting.tried || ran },
        usage: addUsage(context.usage, output.usage),
        ...(failed ? { lastOutcome: 'model_error' as const, error: output.error } : {}),
      });
    }),
    /** A request the turn never served: a cancel ends it; otherwise the agent runs it after this turn. */
    settleUnserved: enqueueActions(({ context, enqueue }) => {
      if (!context.compacting.request || !context.cancelCause) return;
      const result = { compacted: false as const, reason: 'canceled' as const };
      enqueue.sendTo(parentOf, { type: 'turn.compacted', result } satisfies TurnCompactedEvent);
      enqueue.assign({ compacting: { ...context.compacting, request: undefined } });
    }),
  },
  guards: {
    canceled: ({ context }) => context.cancelCause !== undefined,
    modelError: ({ context }) => context.lastOutcome === 'model_error',
    maxTokens: ({ context }) => context.lastOutcome === 'max_tokens',
    unknownToolLimit: ({ context }) => context.consecutiveUnknown >= context.limits.maxUnknownToolCalls,
    stepLimit: ({ context }) => stepDue(context) && context.stepCount >= context.limits.maxSteps,
    compactRequested: ({ context }) => context.compacting.request !== undefined,
    preCompactHooksDue: ({ context }) => context.step.hooks?.preCompact === true,
    compactionDue: ({ context }) => {
      const { usage, policy, tried } = context.compacting;
      return stepDue(context) && compactionDue(usage, policy, tried);
    },
    anotherStep: ({ context }) => stepDue(context),
    /** Background children started with `wait` have not reported: the turn may not end yet. */
    owesAgents: ({ context }) => context.owed.length > 0,
    // The pre-step work (docs/hooks-and-settings.md, docs/instructions-and-skills.md) is due before every
    // step when a hook or MCP servers ask for it, and otherwise only when the tools offered may have changed
    // (a plan accepted, `agent.setPermissionMode`) or the turn's first step refreshes the environment block.
    preStepDue: ({ context }) => context.preStepEveryStep || context.toolsChanged,
    userMessageHooksDue: ({ context }) =>
      context.step.hooks?.userMessage === true && context.followups.length > 0,
    allBlocked: ({ event }) => {
      assertEvent(event, 'hook.userMessage');
      return event.messages.every((message) => message.blocked !== undefined);
    },
    /** The model ended a turn that ran normally, and the stop hooks have refused fewer times than the bound. */
    stopHooksDue: ({ context }) =>
      context.step.hooks?.stop === true &&
      context.lastOutcome === 'final' &&
      context.hookVerdicts.stopRefusals < maxStopRefusals,
    stopRefused: ({ event }) => {
      assertEvent(event, 'hook.stop');
      return event.refusal !== undefined;
    },
    notServingRequest: ({ context }) => context.compacting.serving?.trigger !== 'manual',
    /** A typed turn's model gave a final answer that has not been checked yet. */
    outputDue: ({ context }) =>
      context.output !== undefined && !context.output.accepted && context.lastOutcome === 'final',
    outputValid: ({ event }) => {
      assertEvent(event, 'output.checked');
      return event.valid;
    },
    outputRetriesLeft: ({ context }) =>
      (context.output?.failures ?? 0) < (context.output?.request.maxRetries ?? 0),
  },
});
