// The inspector's board (mission control): one row per agent with its task, what it is doing in words,
// its step, tokens, cost and times, subagents under the agent whose call started them, disposed agents last;
// and each job's progress (x of N finished, failures, tasks not started), from nothing but the logs.
//
// The page runs these very functions: they are served as their source (`boardFunctions`), as the agent
// tree's are, so they read no module-level name but each other's; the tree and `estimateCost` come in as
// arguments (`boardView`). A log is outside input: every value is checked here.
import { estimateCost } from '../providers/prices.ts';
import type { ModelPrices, Usage } from '../providers/types.ts';
import type { LogEvent } from '../session/types.ts';
import { projectAgentTree } from './agent-tree.ts';
import type { AgentNodeView, AgentTreeView } from './agent-tree-view.ts';
import { withSystemJobs } from './board-jobs.ts';
import type { BoardJob, BoardRow, BoardStatus, BoardView } from './board-types.ts';

export type { BoardJob, BoardRow, BoardStatus, BoardView };

/**
 * The board of `logs` (session id → events, in log order): the agent tree's order, each disposed root (with
 * its subagents) moved below the live ones; `disposed` names agents the host reports disposed.
 */
export function projectBoard(
  logs: ReadonlyMap<string, readonly LogEvent[]>,
  disposed: readonly string[] = [],
): BoardView {
  return boardView({ tree: projectAgentTree(logs), logs, disposed, cost: estimateCost });
}

/**
 * `projectBoard` with what it uses given in the open (the page passes its own copies: a served function
 * may not name an import): the tree of `logs`, and `cost`, the runtime's `estimateCost`.
 */
export function boardView(from: {
  tree: AgentTreeView;
  logs: ReadonlyMap<string, readonly LogEvent[]>;
  disposed: readonly string[];
  cost: (usage: Usage, prices: ModelPrices) => number;
}): BoardView {
  const gone = new Set(from.disposed);
  const rows = from.tree.agents.map((node) =>
    boardRow(node, { events: from.logs.get(node.id) ?? [], disposed: gone.has(node.id), cost: from.cost }),
  );
  // Subtrees (a root and the rows under it) in the order their roots started; disposed roots' go last.
  const subtrees: BoardRow[][] = [];
  for (const row of rows) {
    if (row.depth === 0 || subtrees.length === 0) subtrees.push([]);
    subtrees.at(-1)?.push(row);
  }
  const started = (group: BoardRow[]) => group[0]?.startedAt ?? Number.POSITIVE_INFINITY;
  subtrees.sort((a, b) => started(a) - started(b));
  const live = subtrees.filter((group) => !group[0]?.disposed);
  const ended = subtrees.filter((group) => group[0]?.disposed);
  return { rows: [...live, ...ended].flat(), jobs: boardJobs(rows) };
}

/** A call of the open turn: started (since `startedAt`) or waiting for approval (since `askedAt`). */
type CallSeen = {
  name: string;
  input: unknown;
  started?: boolean;
  startedAt?: number | undefined;
  asked?: boolean;
  askedAt?: number | undefined;
};

/** One agent's row, read from its (possibly hostile) log and its place in the tree. */
export function boardRow(
  node: AgentNodeView,
  log: {
    events: readonly LogEvent[];
    disposed: boolean;
    cost: (usage: Usage, prices: ModelPrices) => number;
  },
): BoardRow {
  const { events, disposed } = log;
  const count = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
  const time = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
  const keys = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const;
  const zero = (): Usage => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
  const addTo = (sum: Usage, usage: unknown) => {
    const from = usage && typeof usage === 'object' ? (usage as Record<string, unknown>) : {};
    for (const key of keys) sum[key] += count(from[key]);
  };
  const row: BoardRow = {
    id: node.id,
    depth: node.depth,
    task: '',
    status: 'idle',
    doing: '',
    tokens: zero(),
    disposed,
  };
  if (node.parent !== undefined) row.parent = node.parent;
  let prices: ModelPrices | undefined;
  let prompt: string | undefined;
  let turnOpen = false;
  let reason: string | undefined;
  let open = zero();
  let stepAt: number | undefined;
  const calls = new Map<string, CallSeen>();
  for (const event of events) {
    const data = event.data && typeof event.data === 'object' ? event.data : {};
    const at = time(event.ts);
    if (at !== undefined) row.lastAt = at;
    const call = typeof data.callId === 'string' ? calls.get(data.callId) : undefined;
    if (event.type === 'session.start') {
      const config =
        data.config && typeof data.config === 'object' ? (data.config as Record<string, unknown>) : {};
      if (at !== undefined) row.startedAt = at;
      if (typeof config.model === 'string') row.model = clipText(config.model, 60);
      const p = config.prices as Record<string, unknown> | undefined;
      const priced = p && ['input', 'output', 'cacheRead', 'cacheWrite'].every((k) => count(p[k]) === p[k]);
      prices = priced ? (p as ModelPrices) : undefined;
      const job = config.job as Record<string, unknown> | undefined;
      const whole = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;
      if (
        job &&
        typeof job.id === 'string' &&
        whole(job.index) &&
        whole(job.tasks) &&
        (job.index as number) < (job.tasks as number)
      )
        row.job = { id: clipText(job.id, 60), index: job.index as number, tasks: job.tasks as number };
    } else if ((event.type === 'user.message' || event.type === 'inbox.queued') && prompt === undefined) {
      const text = event.type === 'user.message' ? data.content : data.message;
      if (typeof text === 'string') prompt = text;
    } else if (event.type === 'turn.start') {
      [turnOpen, reason, open] = [true, undefined, zero()];
      if (time(event.turn) !== undefined) row.turn = event.turn;
    } else if (event.type === 'step.start') {
      if (time(event.step) !== undefined) row.step = event.step;
      stepAt = at;
    } else if (event.type === 'assistant.message' || event.type === 'compaction') {
      if (turnOpen) addTo(open, data.usage);
    } else if (event.type === 'turn.end') {
      addTo(row.tokens, data.usage);
      [turnOpen, reason, open] = [false, clipText(String(data.reason), 40), zero()];
    } else if (event.type === 'tool.call' && typeof data.callId === 'string')
      calls.set(data.callId, { name: clipText(String(data.name), 40), input: data.input });
    else if (event.type === 'tool.started' && call) Object.assign(call, { started: true, startedAt: at });
    else if (event.type === 'approval.asked' && call) Object.assign(call, { asked: true, askedAt: at });
    else if (event.type === 'approval.decided' && call) call.asked = false;
    else if (event.type === 'tool.result' && typeof data.callId === 'string') {
      calls.delete(data.callId);
      stepAt = at;
    } else if (event.type === 'session.end') row.disposed = true;
  }
  addTo(row.tokens, open);
  if (prices) row.cost = log.cost(row.tokens, prices);
  const firstLine = prompt === undefined ? undefined : prompt.trim().split('\n')[0];
  row.task = clipText(node.description ?? firstLine ?? '', 120) || '(no task yet)';
  if (node.callId !== undefined && node.relation !== 'root' && node.relation !== 'unlinked')
    row.startedBy = {
      callId: clipText(node.callId, 60),
      tool: node.relation === 'task' ? 'task' : 'spawn_agent',
    };
  const { status, doing, since } = describeDoing(row, {
    turnOpen,
    reason,
    stepAt,
    calls: [...calls.values()],
    node,
  });
  return Object.assign(row, { status, doing }, since !== undefined ? { since } : {});
}

/** The status, the words for what it is doing, and since when, from where the log stands (`BoardStatus`). */
export function describeDoing(
  row: BoardRow,
  at: {
    turnOpen: boolean;
    reason: string | undefined;
    stepAt: number | undefined;
    calls: CallSeen[];
    node: AgentNodeView;
  },
): { status: BoardStatus; doing: string; since?: number | undefined } {
  const named = (call: { name: string; input: unknown }) => {
    const argument = argumentSummary(call.input);
    return argument ? `${call.name} ${call.name === 'bash' ? `\`${argument}\`` : argument}` : call.name;
  };
  const more = (list: unknown[]) => (list.length > 1 ? ` and ${list.length - 1} more` : '');
  const asked = at.calls.filter((call) => call.asked);
  const running = at.calls.filter((call) => call.started);
  const waitingMail = running.find((call) => call.name === 'wait_agents');
  const { node } = at;
  // A supervised agent backing off has ended its turn but is not done: it waits for its restart.
  if (node.activity === 'waiting' && node.waitingFor?.startsWith('its restart'))
    return { status: 'waiting', doing: `waiting for ${node.waitingFor}` };
  if (!at.turnOpen && at.reason === undefined)
    return { status: 'idle', doing: row.disposed ? 'disposed before any turn' : 'no turn yet' };
  if (!at.turnOpen && at.reason === 'completed') return { status: 'done', doing: 'done: completed' };
  if (!at.turnOpen)
    return { status: 'failed', doing: `${at.reason === 'canceled' ? 'stopped' : 'failed'}: ${at.reason}` };
  if (asked[0]) {
    const doing = `waiting for your approval of ${named(asked[0])}${more(asked)}`;
    return { status: 'waiting', doing, since: asked[0].askedAt };
  }
  if (waitingMail)
    return { status: 'waiting', doing: 'waiting for mail (wait_agents)', since: waitingMail.startedAt };
  if (running[0])
    return {
      status: 'running',
      doing: `running ${named(running[0])}${more(running)}`,
      since: running[0].startedAt,
    };
  if (node.activity === 'waiting' && node.waitingFor)
    return { status: 'waiting', doing: `waiting for ${clipText(node.waitingFor, 200)}` };
  if (at.calls[0])
    return {
      status: 'running',
      doing: `about to run ${named(at.calls[0])}${more(at.calls)}`,
      since: at.stepAt,
    };
  const step = row.step !== undefined ? ` (step ${row.step})` : '';
  return { status: 'running', doing: `asking the model${step}`, since: at.stepAt };
}

/** The argument a person knows a call by (a bash command, a file path, a pattern, a task), clipped. */
export function argumentSummary(input: unknown): string {
  if (typeof input === 'string') return clipText(input, 80);
  if (!input || typeof input !== 'object') return '';
  const fields = input as Record<string, unknown>;
  const names = [
    'command',
    'path',
    'file_path',
    'pattern',
    'url',
    'description',
    'prompt',
    'query',
    'skill',
    'name',
  ];
  const key =
    names.find((name) => typeof fields[name] === 'string') ??
    Object.keys(fields).find((name) => typeof fields[name] === 'string');
  return key === undefined ? '' : clipText((fields[key] as string).trim().split('\n')[0] ?? '', 80);
}

/** `text` on one line: control characters shown as escapes (a newline as ⏎), at most `max` characters. */
export function clipText(text: string, max: number): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it makes visible
  const visible = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) =>
    c === '\n' ? '⏎' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return visible.length > max ? `${visible.slice(0, max - 1)}…` : visible;
}

/** Each job's progress: its tasks, those finished (failed among them), running, and not started yet. */
export function boardJobs(rows: readonly BoardRow[]): BoardJob[] {
  const jobs = new Map<string, { tasks: number; rows: Map<number, BoardRow> }>();
  for (const row of rows) {
    if (!row.job) continue;
    const job = jobs.get(row.job.id) ?? { tasks: 0, rows: new Map<number, BoardRow>() };
    job.tasks = Math.max(job.tasks, row.job.tasks);
    // A restarted task keeps its session; a second agent for one index counts once, the later one.
    job.rows.set(row.job.index, row);
    jobs.set(row.job.id, job);
  }
  return [...jobs].map(([id, job]) => {
    const all = [...job.rows.values()];
    const finished = all.filter((row) => row.status === 'done' || row.status === 'failed').length;
    const failed = all.filter((row) => row.status === 'failed').length;
    return {
      id,
      tasks: job.tasks,
      finished,
      failed,
      running: all.length - finished,
      notStarted: job.tasks - all.length,
    };
  });
}

/** A span of milliseconds as a person says it: `12 s`, `3 min 4 s`, `2 h 5 min`; '' for none. */
export function durationText(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) return '';
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** The functions above, in the order the page defines them (`boardScript`). */
export const boardFunctions = [
  boardView,
  boardRow,
  describeDoing,
  argumentSummary,
  clipText,
  boardJobs,
  withSystemJobs,
  durationText,
];
