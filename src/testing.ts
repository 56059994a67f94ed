// agentchart/testing: deterministic pieces for tests and demos. Nothing here talks to a real model.

export { SimulatedClock } from './core/clock.ts';
export {
  type ScriptEntry,
  type ScriptedOptions,
  type ScriptedProvider,
  type ScriptStep,
  scripted,
} from './providers/scripted.ts';
export { expectReplay, type ReplayCheck } from './replay/expect-replay.ts';
export type { ReplaySetup } from './replay/replay-session.ts';
export type { ReplayOptions, ReplayTools } from './replay/replay-tools.ts';
export { isCompactionRequest } from './session/compaction-request.ts';
export { assertSameLog, firstDivergence } from './session/compare-logs.ts';
export { recordedResponses, replay } from './session/replay-provider.ts';
