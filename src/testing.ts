// agentchart/testing: deterministic pieces for tests and demos. Nothing here talks to a real model.

export { recordedResponses, replay } from './providers/replay.ts';
export {
  type ScriptEntry,
  type ScriptedOptions,
  type ScriptedProvider,
  type ScriptStep,
  scripted,
} from './providers/scripted.ts';
export { SimulatedClock } from './runtime/clock.ts';
export { assertSameLog } from './session/compare-logs.ts';
