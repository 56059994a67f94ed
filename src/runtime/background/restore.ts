// A resumed agent brings back the background children its log says it started, each from its own log:
// one that ended stays ended (its record answers `list_agents`); one that a crash stopped is resumed and
// goes on (its prompt if it never began, `continueMessage` if its turn was interrupted, nothing more if its
// turn had ended); and the mail a crash left in flight either way is delivered, once, by message id.

import type { Clock } from '../../core/clock.ts';
import { emptyUsage } from '../../providers/types.ts';
import {
  backgroundSpawns,
  offeredToolNames,
  restartsOf,
  sentResult,
  stoppedByParent,
  undeliveredMail,
} from '../../session/mail-log.ts';
import type { SessionLog } from '../../session/session-log.ts';
import { isEvent, type LogEvent, type OutputSpec, type SupervisionSpec } from '../../session/types.ts';
import type { OutputOptions } from '../../tools/output-schema.ts';
import type { JsonSchemaObject } from '../../tools/tool-input.ts';
import type { Agent } from '../agent-handle.ts';
import type { ChildLaunch, ChildRequest } from '../child-launch.ts';
import { continueMessage, taskState } from '../jobs/durable-task.ts';
import { type RunResult, turnResult } from '../turn-result.ts';
import type { ChildRecord, ChildStart, ChildSupervision } from './child-record.ts';
import type { Mail } from './mail.ts';

/** What restoring needs of the system's background agents. */
export type RestoreHost = {
  prepareChild(parentId: string, request: ChildRequest): ChildLaunch;
  resumeChild(id: string, launch: ChildLaunch): Promise<Agent>;
  /** A session's stored events, or undefined when it is missing or cannot be read. */
  loadLog(id: string): Promise<LogEvent[] | undefined>;
  start(
    start: ChildStart,
    child: Agent,
    work: () => Promise<RunResult>,
    supervision: ChildSupervision,
  ): ChildRecord;
  /** The system's clock: what is left of a backoff a crash cut short is counted on it. */
  clock: Clock;
  /** Keeps the record of a child that had ended before the crash. */
  keepEnded(start: ChildStart, events: readonly LogEvent[]): ChildRecord;
  redeliver(mail: Mail): boolean;
  /** Tells `parentId` that child `id` will not report: it ended without a result, or cannot come back. */
  forget(parentId: string, id: string): void;
  report(agentId: string, error: unknown): void;
};

/**
 * Brings back the background children of `parent` (just resumed), then delivers the mail left in flight:
 * only once every child is back, so the parent knows each one that still runs (its turn waits for it)
 * before any mail wakes it.
 */
export async function restoreChildren(
  host: RestoreHost,
  parent: { id: string; log: SessionLog },
): Promise<void> {
  const back: { id: string; events: readonly LogEvent[]; live: boolean }[] = [];
  let mailDelivered: () => void = () => {};
  const delivered = new Promise<void>((resolve) => {
    mailDelivered = resolve;
  });
  try {
    await bringBack(host, parent, back, delivered);
    for (const child of back) {
      if (child.live)
        for (const mail of undeliveredMail({ id: parent.id, events: parent.log.events }, child))
          host.redeliver(mailOf(mail));
      deliverUp(host, child, parent);
    }
  } finally {
    mailDelivered();
  }
}

/** Brings back each child the parent's log started, into `back`; a resumed one's run waits for `delivered`. */
async function bringBack(
  host: RestoreHost,
  parent: { id: string; log: SessionLog },
  back: { id: string; events: readonly LogEvent[]; live: boolean }[],
  delivered: Promise<void>,
): Promise<void> {
  for (const spawn of backgroundSpawns(parent.log.events)) {
    const { childId: id, callId, wait, description, agentType, prompt } = spawn;
    const events = await host.loadLog(id);
    // A child whose log cannot be read cannot be continued; its parent learns nothing more from it.
    if (events === undefined) {
      host.forget(parent.id, id);
      continue;
    }
    const start: ChildStart = { id, parentId: parent.id, callId, wait, description, agentType };
    if (events.some((event) => isEvent(event, 'session.end'))) {
      host.keepEnded(start, events);
      // Stopped, it sends no result: a turn waiting for it waits no more.
      if (sentResult(events) === undefined) host.forget(parent.id, id);
      back.push({ id, events, live: false });
      continue;
    }
    let child: Agent;
    try {
      const names = offeredToolNames(events);
      child = await host.resumeChild(id, host.prepareChild(parent.id, { tools: names, agentType }));
    } catch (error) {
      host.report(parent.id, error);
      host.forget(parent.id, id);
      continue;
    }
    const run = typedRun(prompt, spawn.output);
    // A child that has sent its result, or that its parent stopped, is not restarted again.
    const ended = sentResult(events) !== undefined || stoppedByParent(events);
    const supervision = supervisionOf(host.clock, ended ? undefined : spawn.supervision, run, {
      parent: parent.log.events,
      id,
      child: events,
    });
    const work = supervision.pending
      ? () => lastResult(child)
      : continuation(child, events, { ...run, delivered });
    const record = host.start(start, child, work, supervision);
    if (sentResult(events) !== undefined) {
      record.resultSent = true;
      record.turnEnded = true;
    }
    if (stoppedByParent(events)) record.stopping = true;
    back.push({ id, events, live: true });
  }
}

/**
 * A restored child's supervision: its policy as its link recorded it, the restarts its parent's log
 * decided, and a restart decided but not yet carried out (the crash fell in its backoff), with what is
 * left of its wait.
 */
function supervisionOf(
  clock: Clock,
  policy: SupervisionSpec | undefined,
  run: ChildRun,
  logs: { parent: readonly LogEvent[]; id: string; child: readonly LogEvent[] },
): ChildSupervision {
  const { decided, done, last } = restartsOf(logs.parent, logs.id, logs.child);
  const base = { policy, typed: run.typed, restarts: decided };
  if (!policy || !last || decided <= done) return base;
  const { reason, error, backoffMs } = last.data;
  const delayMs = Math.max(0, last.ts + backoffMs - clock.now());
  return { ...base, pending: { reason, ...(error !== undefined ? { error } : {}), delayMs } };
}

/** A child's run: its prompt, typed by the output its link recorded (checked by that JSON Schema). */
type ChildRun = { prompt: string; typed: OutputOptions | undefined };

function typedRun(prompt: string, output: OutputSpec | undefined): ChildRun {
  const schema = output?.schema as JsonSchemaObject | undefined;
  return {
    prompt,
    typed: schema && output ? { output: schema, maxOutputRetries: output.maxRetries } : undefined,
  };
}

/**
 * What a resumed child still has to do, decided now for a child that never began (its prompt is queued at
 * once, before any mail that follows it), and otherwise once the mail a crash left in flight is delivered
 * (`delivered`) and it is idle (a turn it continues, or queued input it starts by itself, mail included,
 * runs first): nothing more when its turn had ended, else `continueMessage`, typed like its prompt.
 */
function continuation(
  child: Agent,
  events: readonly LogEvent[],
  run: ChildRun & { delivered: Promise<void> },
): () => Promise<RunResult> {
  const { prompt, typed, delivered } = run;
  const sent = sentResult(events);
  if (sent !== undefined || stoppedByParent(events)) return () => lastResult(child);
  if (child.state === 'ready.idle' && taskState(child.log()).kind === 'new')
    return () => child.run(prompt, typed);
  return async () => {
    await delivered;
    await child.whenIdle();
    const state = taskState(child.log());
    if (state.kind === 'done') return lastResult(child);
    return child.run(state.kind === 'new' ? prompt : continueMessage, typed);
  };
}

/** The result of the child's last turn, once it is idle (canceled with nothing, if it has none). */
async function lastResult(child: Agent): Promise<RunResult> {
  await child.whenIdle();
  const events = child.log();
  const end = events.findLast((event) => isEvent(event, 'turn.end'));
  if (end && isEvent(end, 'turn.end')) return turnResult(events, end);
  return { reason: 'canceled', text: '', usage: emptyUsage, turn: 0, denied: [] };
}

/** The child's messages and result its parent's log does not hold yet. */
function deliverUp(
  host: RestoreHost,
  child: { id: string; events: readonly LogEvent[] },
  parent: { id: string; log: SessionLog },
): void {
  for (const mail of undeliveredMail(child, { id: parent.id, events: parent.log.events }))
    host.redeliver(mailOf(mail));
}

function mailOf(sent: ReturnType<typeof undeliveredMail>[number]): Mail {
  return {
    id: sent.id,
    from: sent.from,
    to: sent.to,
    kind: sent.kind ?? 'message',
    text: sent.text,
    ...(sent.reason !== undefined ? { reason: sent.reason } : {}),
    ...(sent.by !== undefined ? { by: sent.by } : {}),
  };
}
