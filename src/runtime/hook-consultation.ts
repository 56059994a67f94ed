import type { HookDeps } from '../actors/hook.ts';
import { liveConsult, recordedConsult, recordedPoints } from '../hooks/consult.ts';
import { ProcessSweeps } from '../hooks/hook-process.ts';
import { type HookPoint, wiredHookPoints } from '../hooks/hook-types.ts';
import { hookTable } from '../hooks/in-process-hook.ts';
import type { HookFlags } from '../machines/hook-events.ts';
import type { LogEvent } from '../session/types.ts';
import { HookTranscripts } from './hook-transcripts.ts';
import type { SystemConfig } from './options-schema.ts';

/**
 * How a system's hook points are consulted. Live, the hooks the host configured run; in a replay
 * (`hookReplay`) every point answers with the recorded decisions, and the charts wait at the points the
 * recording consulted.
 */
export type HookConsultation = {
  consult: HookDeps['consult'];
  /** The chart points that wait for hooks. */
  flags: HookFlags;
  /** Creation tells `sessionStart` hooks (a top-level agent's): its publish stage has something to abort. */
  sessionStart: boolean;
  /** Dispose waits for `sessionEnd` hooks (a top-level agent's; subagents are not told). */
  sessionEnd: boolean;
  /** Resolves once every process a command hook left running has been stopped. */
  settled: () => Promise<void>;
  /** Where command hooks find the session's transcript (live only); removed once hooks have settled. */
  transcripts?: HookTranscripts;
};

export function hookConsultation(config: SystemConfig): HookConsultation {
  if (config.hookReplay) return recordedHooks(config.hookReplay);
  const sweeps = new ProcessSweeps();
  const table = hookTable(config.hooks, config.cwd, sweeps);
  const has = (point: HookPoint) => (table[point]?.length ?? 0) > 0;
  const transcripts = new HookTranscripts();
  return {
    consult: liveConsult(table),
    flags: hookFlagsOf(has),
    sessionStart: has('sessionStart'),
    sessionEnd: has('sessionEnd'),
    settled: () => sweeps.settled().then(() => transcripts.dispose()),
    transcripts,
  };
}

/** Every hook point answers with the decisions `events` logged; the charts wait where it consulted. */
export function recordedHooks(events: readonly LogEvent[]): HookConsultation {
  const points = recordedPoints(events);
  const has = (point: HookPoint) => points.has(point);
  return {
    consult: recordedConsult(events),
    flags: hookFlagsOf(has),
    sessionStart: has('sessionStart'),
    sessionEnd: has('sessionEnd'),
    settled: () => Promise.resolve(),
  };
}

function hookFlagsOf(has: (point: HookPoint) => boolean): HookFlags {
  const flags: HookFlags = {};
  for (const point of wiredHookPoints) {
    // The session points are consulted at every setup and dispose (with no hooks: no decisions).
    if (point === 'subagentStop' || point === 'sessionStart' || point === 'sessionEnd') continue;
    if (has(point)) flags[point] = true;
  }
  // One chart state serves both: a subagent's turn asks the `subagentStop` hooks where others ask `stop`.
  if (has('subagentStop')) flags.stop = true;
  return flags;
}
