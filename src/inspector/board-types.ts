// What the inspector's board shows of each agent and job (projected from the logs by board.ts). Types
// only: the projection is served to the page as source.
import type { Usage } from '../providers/types.ts';

/** Where an agent stands: in a turn (`running`, or `waiting` for a person, mail or its agents), before its
 * first turn (`idle`), or after its last (`done` when it completed, `failed` for any other stop reason). */
export type BoardStatus = 'running' | 'waiting' | 'idle' | 'done' | 'failed';

export type BoardRow = {
  id: string;
  depth: number;
  parent?: string;
  /** The parent's call that started it: its id and tool (`task`, `spawn_agent`). */
  startedBy?: { callId: string; tool: string };
  /** What it was asked: its parent's label for it, else the first line of its first prompt (clipped). */
  task: string;
  status: BoardStatus;
  /** What it is doing in words: "running bash `npm test`", "waiting for your approval of write_file a.ts". */
  doing: string;
  /** When what `doing` says began (the log's `ts`, the injected clock); absent when it is over. */
  since?: number;
  turn?: number;
  step?: number;
  tokens: Usage;
  /** The estimate from the prices its `session.start` recorded; absent: unknown price. */
  cost?: number;
  model?: string;
  startedAt?: number;
  /** The `ts` of its last event. */
  lastAt?: number;
  disposed: boolean;
  /** A job's task: its place in the job (from `session.start`'s `config.job`). */
  job?: { id: string; index: number; tasks: number };
};

/** One job: its `tasks`, how many `finished` (`failed` of them), are `running`, or were `notStarted`. */
export type BoardJob = {
  id: string;
  tasks: number;
  finished: number;
  failed: number;
  running: number;
  notStarted: number;
};

export type BoardView = { rows: BoardRow[]; jobs: BoardJob[] };
