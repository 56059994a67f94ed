import type { LogEvent } from '../session/types.ts';

/**
 * What `agent.events()` yields: every log event as it is appended, plus live-only deltas, progress, the
 * context usage after each answered request, and the start of a compaction.
 */
export type LiveEvent =
  | { type: 'log'; agentId: string; event: LogEvent }
  | { type: 'model.delta'; agentId: string; turn: number; step: number; text: string }
  | { type: 'thinking.delta'; agentId: string; turn: number; step: number; text: string }
  | { type: 'tool.progress'; agentId: string; callId: string; progress: unknown }
  /** After each answered step request: the context it used (input and cache tokens) and the window. */
  | {
      type: 'context.usage';
      agentId: string;
      turn: number;
      step: number;
      usedTokens: number;
      contextWindow: number;
    }
  /** A compaction's summarising request is being sent (its end is the logged `compaction`, or an error). */
  | { type: 'compaction.start'; agentId: string; turn: number; step: number }
  | { type: 'runtime.error'; agentId: string; message: string };

export type Publish = (event: LiveEvent) => void;
