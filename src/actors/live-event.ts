import type { LogEvent } from '../session/types.ts';

/** What `agent.events()` yields: every log event as it is appended, plus live-only deltas and progress. */
export type LiveEvent =
  | { type: 'log'; agentId: string; event: LogEvent }
  | { type: 'model.delta'; agentId: string; turn: number; step: number; text: string }
  | { type: 'thinking.delta'; agentId: string; turn: number; step: number; text: string }
  | { type: 'tool.progress'; agentId: string; callId: string; progress: unknown }
  | { type: 'runtime.error'; agentId: string; message: string };

export type Publish = (event: LiveEvent) => void;
