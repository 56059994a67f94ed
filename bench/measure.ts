// One measurement in a fresh process (started by bench/run.ts); prints one JSON line.
//   node --expose-gc --import tsx bench/measure.ts <measurement> [--name value ...]
// Measurements: speed, floor, burst, idle-heap, retained, create, store, append, tracing. See each function.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { fileStore } from '../src/session/file-store.ts';
import { memoryStore } from '../src/session/memory-store.ts';
import { formatLogLine } from '../src/session/schema.ts';
import type { LogEvent, SessionStore } from '../src/session/types.ts';
import { fullGc, idleHeapBytes } from './idle-memory.ts';
import { agentchartRun, bareXStateRun, benchSystem, toolRuns, type Work } from './peer-work.ts';
import { xstateFloorPerStep } from './xstate-floor.ts';

const [measurement, ...rest] = process.argv.slice(2);
const options = new Map<string, string>();
for (let i = 0; i < rest.length; i += 2) options.set(rest[i]!.replace(/^--/, ''), rest[i + 1]!);
const number = (name: string, fallback: number) => Number(options.get(name) ?? fallback);
const subject = options.get('subject') ?? 'agentchart';

function work(): Work {
  return { steps: number('steps', 10), deltas: number('deltas', 3), delayMs: number('delay-ms', 0) };
}

/** A run of the subject's loop on `work`, on one shared system (agentchart) as a host would keep it. */
function runner(work: Work, store: SessionStore = memoryStore()): () => Promise<void> {
  if (subject === 'xstate') return () => bareXStateRun(work);
  const system = benchSystem(work, store);
  return () => agentchartRun(system, store);
}

/** Runs `run` until `minMs` and `minRuns` are both reached; µs per step, checked against the tool count. */
async function timed(run: () => Promise<void>, steps: number, minMs: number, minRuns: number) {
  const calls = toolRuns.count;
  let runs = 0;
  const start = performance.now();
  while (runs < minRuns || performance.now() - start < minMs) {
    await run();
    runs++;
  }
  const wallMs = performance.now() - start;
  if (toolRuns.count - calls !== runs * steps) throw new Error(`${toolRuns.count - calls} tool runs`);
  return { runs, usPerStep: (wallMs * 1000) / (runs * steps), usPerRun: (wallMs * 1000) / runs };
}

/** µs per step, each run creating and disposing its agent (the peer benchmark's `speed`). */
async function speed() {
  const w = work();
  const run = runner(w);
  await timed(run, w.steps, number('warmup-ms', 1500), 20);
  fullGc();
  return { ...w, ...(await timed(run, w.steps, number('min-ms', 1500), 20)) };
}

/** µs per step of agentchart's actor traffic alone, with no work (bench/xstate-floor.ts). */
async function floor() {
  const steps = number('steps', 10);
  const turns = Math.max(20, Math.round(3000 / steps));
  await xstateFloorPerStep(steps, turns);
  return { steps, usPerStep: await xstateFloorPerStep(steps, turns) };
}

/** 1,000 agents × 10 steps at once against a model with 5 ms latency: wall time and event-loop lag. */
async function burst() {
  const agents = number('agents', 1000);
  const w = { steps: 10, deltas: 3, delayMs: 0 };
  const run = runner(w);
  for (let i = 0; i < 20; i++) await run();
  w.delayMs = number('delay-ms', 5);
  await Promise.all(Array.from({ length: 50 }, run));
  fullGc();
  const lag = monitorEventLoopDelay({ resolution: 1 });
  lag.enable();
  const start = performance.now();
  await Promise.all(Array.from({ length: agents }, run));
  const wallMs = performance.now() - start;
  lag.disable();
  return { agents, wallMs, lagP99Ms: lag.percentile(99) / 1e6 };
}

/** Heap bytes per idle agent (live, after 5 turns) or idle conversation (its log only). */
async function idleHeap() {
  const kind = options.get('kind') === 'conversation' ? 'conversation' : 'agent';
  return { kind, bytes: await idleHeapBytes(kind, number('count', 1000)) };
}

/** Heap bytes left per agent created, run (one tool step), disposed and removed, after GC. */
async function retained() {
  const cycles = number('cycles', 100_000);
  const w = { steps: 1, deltas: 3, delayMs: 0 };
  const run = runner(w);
  for (let i = 0; i < 2000; i++) await run();
  fullGc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < cycles; i++) await run();
  fullGc();
  return { cycles, bytesPerAgent: (process.memoryUsage().heapUsed - before) / cycles };
}

/** µs per `createAgent` + `dispose` with no run between. */
async function create() {
  const store = memoryStore();
  const system = benchSystem(work(), store);
  const once = async () => {
    const agent = await system.createAgent({});
    await agent.dispose();
    await store.remove(agent.sessionId);
  };
  for (let i = 0; i < 500; i++) await once();
  fullGc();
  const count = number('count', 5000);
  const start = performance.now();
  for (let i = 0; i < count; i++) await once();
  return { count, usPerAgent: ((performance.now() - start) * 1000) / count };
}

function storeFor(kind: string, dir: string): SessionStore {
  if (kind === 'memory') return memoryStore();
  return fileStore(dir, kind === 'fsync' ? { durability: 'fsync' } : {});
}

/** A real agent (S=10) on the memory store, the file store, or the file store with fsync: µs per step, events/s. */
async function store() {
  const kind = options.get('kind') ?? 'memory';
  const dir = mkdtempSync(join(tmpdir(), 'agentchart-bench-'));
  try {
    const w = work();
    const sessions = storeFor(kind, dir);
    const run = runner(w, sessions);
    await timed(run, w.steps, 500, 5);
    // Events per run, counted on one run that is kept.
    const system = benchSystem(w, sessions);
    const agent = await system.createAgent({});
    await agent.run('Run the benchmark.');
    const eventsPerRun = agent.log().length;
    await agent.dispose();
    const result = await timed(run, w.steps, number('min-ms', 1500), 10);
    return { kind, ...result, eventsPerSecond: (eventsPerRun * 1e6) / result.usPerRun };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Events per second into a file store, one event per append: `awaited` waits for each append before the
 * next (one write each), `queued` makes them all at once (group commit writes what queued up together).
 */
async function append() {
  const dir = mkdtempSync(join(tmpdir(), 'agentchart-bench-'));
  try {
    const sessions = storeFor(options.get('kind') ?? 'file', dir);
    await sessions.create('s');
    const count = number('count', 5000);
    const event = (seq: number): LogEvent => ({ v: 1, seq, ts: 0, type: 'turn.start', data: {} });
    formatLogLine(event(0));
    const start = performance.now();
    if (options.get('mode') === 'queued') {
      await Promise.all(Array.from({ length: count }, (_, seq) => sessions.append('s', [event(seq)])));
    } else {
      for (let seq = 0; seq < count; seq++) await sessions.append('s', [event(seq)]);
    }
    return { count, eventsPerSecond: count / ((performance.now() - start) / 1000) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * µs per step (S=10, 3 deltas) with tracing `off` (`telemetry: false`), `none`: the default, with
 * `@opentelemetry/api` installed but no tracer provider registered, and `sdk`: the SDK's provider making
 * every span (no exporter, so only agentchart's and the SDK's span work is counted). The three systems
 * take turns run by run in one process, so a loaded machine slows them alike; wall and CPU time per step.
 */
async function tracing() {
  const w = work();
  const sessions = memoryStore();
  const modes = {
    off: benchSystem(w, sessions, false),
    none: benchSystem(w, sessions),
    sdk: benchSystem(w, sessions, { tracerProvider: new TracerProvider() }),
  };
  const totals = Object.fromEntries(Object.keys(modes).map((mode) => [mode, { wallUs: 0, cpuUs: 0 }]));
  const rounds = number('rounds', 300);
  for (let round = -50; round < rounds; round++) {
    for (const [mode, system] of Object.entries(modes)) {
      const cpu = process.cpuUsage();
      const start = performance.now();
      await agentchartRun(system, sessions);
      const wallUs = (performance.now() - start) * 1000;
      const { user, system: kernel } = process.cpuUsage(cpu);
      // The first 50 rounds warm up.
      if (round < 0) continue;
      totals[mode]!.wallUs += wallUs;
      totals[mode]!.cpuUs += user + kernel;
    }
    if (round === -1) fullGc();
  }
  const perStep = (value: number) => value / (rounds * w.steps);
  return Object.fromEntries(
    Object.entries(totals).flatMap(([mode, { wallUs, cpuUs }]) => [
      [`${mode}UsPerStep`, perStep(wallUs)],
      [`${mode}CpuUsPerStep`, perStep(cpuUs)],
    ]),
  );
}

const measurements: Record<string, () => Promise<object>> = {
  speed,
  floor,
  burst,
  'idle-heap': idleHeap,
  retained,
  create,
  store,
  append,
  tracing,
};
const measure = measurements[measurement ?? ''];
if (!measure) throw new Error(`unknown measurement ${measurement}; one of ${Object.keys(measurements)}`);
console.log(JSON.stringify({ measurement, subject, ...(await measure()) }));
process.exit(0);
