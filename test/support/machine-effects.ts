// Reading what a pure `transition()` / `initialTransition()` asked for, shared by the chart unit tests.
import type { AnyEventObject } from 'xstate';
import type { LogEntry } from '../../src/session/types.ts';

/** An action as pure transitions return it. */
export type MachineAction = { type: string; params?: unknown };

/** Events a long-lived child reports to its parent with `sendTo(parentOf, …)`. */
const reportTypes = new Set(['step.done', 'batch.done']);

/**
 * What a machine asked for, as compact strings in order: `log <type> [callId] [outcome]`, `spawn <id>`,
 * `stop <id>` (`(ended)` for a child that already ended: harmless), `send <id> <event>` and
 * `report <event>`. With `hideReports`, reports are left out for tests that read them another way.
 */
export function describeEffects(
  actions: readonly MachineAction[],
  options: { hideReports?: boolean } = {},
): string[] {
  return actions.flatMap((action) => {
    const params = action.params as Record<string, unknown> | undefined;
    if (action.type === 'log') {
      const entry = params as LogEntry;
      const data = entry.data as { callId?: string; outcome?: string };
      return [['log', entry.type, data.callId, data.outcome].filter(Boolean).join(' ')];
    }
    if (action.type === 'xstate.spawnChild') return [`spawn ${params?.id as string}`];
    if (action.type === 'xstate.stopChild')
      return [`stop ${(params as { id?: string } | undefined)?.id ?? '(ended)'}`];
    if (action.type === 'xstate.sendTo') {
      const to = params?.to as { id?: string } | string;
      const event = params?.event as AnyEventObject | undefined;
      if (event && reportTypes.has(event.type)) return options.hideReports ? [] : [`report ${event.type}`];
      return [`send ${typeof to === 'string' ? to : to.id} ${event?.type}`];
    }
    return [];
  });
}

/** The events these actions send, in order: to children, and reports to the parent. */
export function sentEvents(actions: readonly MachineAction[]): AnyEventObject[] {
  return actions
    .filter((action) => action.type === 'xstate.sendTo')
    .map((action) => (action.params as { event: AnyEventObject }).event);
}

/** The report of this type among the actions, if the machine made one. */
export function reportIn<Report extends AnyEventObject>(
  actions: readonly MachineAction[],
  type: Report['type'],
): Report | undefined {
  return sentEvents(actions).find((event) => event.type === type) as Report | undefined;
}

/** The log entries among the actions, in order. */
export function loggedEntries(actions: readonly MachineAction[]): LogEntry[] {
  return actions.filter((action) => action.type === 'log').map((action) => action.params as LogEntry);
}

/** The input a spawn with this id was given, if the actions spawn it. */
export function spawnInput(actions: readonly MachineAction[], id: string): unknown {
  const spawn = actions.find(
    (action) => action.type === 'xstate.spawnChild' && (action.params as { id: string }).id === id,
  );
  return (spawn?.params as { input: unknown } | undefined)?.input;
}
