// Pure helpers of the tool-batch chart: the log entries it writes and the inputs of the actors it spawns.
// Kept beside the chart so the chart file reads as states and transitions.
import type { LogEntry, LogEventData } from '../session/types.ts';
import type { AgentKeyed } from './agent-key.ts';
import { applyChecks, applyResumeChecks, type BatchCall } from './tool-batch-plan.ts';
import type {
  BatchOutput,
  CallCheck,
  ToolBatchContext,
  ToolBatchEvent,
  ToolCheckCommand,
} from './tool-batch-types.ts';

type Meta = { turn: number; step: number };

/** What a tool-call actor is started with. */
export type CallInput = AgentKeyed & { callId: string; name: string; input: unknown };

/** A log entry of this batch's step. */
export function entryAt<
  Type extends 'tool.call' | 'tool.started' | 'tool.result' | 'approval.asked' | 'approval.decided',
>(context: Meta, type: Type, data: LogEventData[Type]): LogEntry {
  return { type, turn: context.turn, step: context.step, data } as LogEntry;
}

export const toolCallInput = (context: ToolBatchContext, call: BatchCall): CallInput & Meta => ({
  agentKey: context.agentKey,
  callId: call.callId,
  name: call.name,
  input: call.input,
  turn: context.turn,
  step: context.step,
});

/** What the batch's calls are checked as: the model's calls, in model order. */
export const checkCommand = (context: ToolBatchContext): ToolCheckCommand => ({
  type: 'check',
  calls: context.calls.map((call) => ({ id: call.callId, name: call.name, input: call.input })),
});

/** The call as the model asked for it. */
export function callEntry(context: Meta, call: BatchCall): LogEntry {
  return entryAt(context, 'tool.call', { callId: call.callId, name: call.name, input: call.input });
}

/** The one result of a settled call. */
export function resultEntry(context: Meta, call: BatchCall): LogEntry {
  const { callId, outcome, content, error } = call;
  const added = call.context !== undefined ? `\n\n${call.context}` : '';
  const data = {
    callId,
    outcome: outcome!,
    content: `${content ?? ''}${added}`,
    ...(error !== undefined ? { error } : {}),
  };
  return entryAt(context, 'tool.result', data);
}

/** The check's decisions to log: every one it made, except for the calls the log already holds one for. */
export function decisionEntries(context: ToolBatchContext, checks: readonly CallCheck[]): LogEntry[] {
  return checks.flatMap(({ callId, decision }) => {
    if (!decision) return [];
    const data = { callId, outcome: decision.outcome, by: decision.by, reason: decision.reason };
    return [entryAt(context, 'approval.decided', data)];
  });
}

/**
 * The decisions a resumed batch's check made about its pending calls: none about calls that have their
 * result already, and none about calls the log holds a decision for (it stands, and is not written twice).
 */
export function resumedDecisionEntries(context: ToolBatchContext, checks: readonly CallCheck[]): LogEntry[] {
  const undecided = new Set(
    context.calls.filter((call) => call.phase === 'pending' && !call.decision).map((call) => call.callId),
  );
  return decisionEntries(
    context,
    checks.filter((check) => undecided.has(check.callId)),
  );
}

/** What the batch reports once every call has exactly one committed result. */
export function batchOutput(context: ToolBatchContext): BatchOutput {
  const { calls, unknownTools } = context;
  return { results: calls.filter((call) => call.committed).length, unknownTools, calls: calls.length };
}

/** A host's or person's answer to a call waiting for approval. */
export function answerEntry(
  context: Meta,
  event: Extract<ToolBatchEvent, { type: 'tool.approve' | 'tool.deny' }>,
  reason?: string,
): LogEntry {
  const by = event.by ?? 'user';
  if (event.type === 'tool.deny') {
    return entryAt(context, 'approval.decided', {
      callId: event.callId,
      outcome: 'deny',
      by,
      reason: reason!,
    });
  }
  // The mode an accepted plan switches to, when the host named one (see `exit_plan_mode`).
  const mode = event.mode !== undefined ? { mode: event.mode } : {};
  if (event.remember !== 'session')
    return entryAt(context, 'approval.decided', { callId: event.callId, outcome: 'allow', by, ...mode });
  const rule = event.rule !== undefined ? { rule: event.rule } : {};
  return entryAt(context, 'approval.decided', {
    callId: event.callId,
    outcome: 'allow_session',
    by,
    ...rule,
    ...mode,
  });
}

/** What the check reports about unknown tools, counted over every call of the batch. */
export function unknownToolCount(checks: readonly CallCheck[]): number {
  return checks.filter((check) => check.unknownTool).length;
}

/** What a check's answer changes: the decisions to log, the unknown-tool count and the checked calls. */
export function checkedBatch(context: ToolBatchContext, checks: CallCheck[], resumed: boolean) {
  return {
    entries: resumed ? resumedDecisionEntries(context, checks) : decisionEntries(context, checks),
    unknownTools: unknownToolCount(checks),
    calls: (resumed ? applyResumeChecks : applyChecks)(context.calls, checks),
  };
}
