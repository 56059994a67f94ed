// agentchart/testing: deterministic pieces for tests and demos. Nothing here talks to a real model.

export {
  type ScriptEntry,
  type ScriptedOptions,
  type ScriptedProvider,
  type ScriptStep,
  scripted,
} from './providers/scripted.ts';
export { SimulatedClock } from './runtime/clock.ts';
