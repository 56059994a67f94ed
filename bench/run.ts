// npm run bench: what the runtime costs beside the model, and beside a bare XState loop doing the same
// work in the same run (bench/peer-work.ts). Every measurement runs in a fresh process (bench/measure.ts),
// interleaved across rounds; the tables show medians. Not part of npm test; the figures go to the README.
// Absolute numbers move with the machine's load: read the ratios. BENCH_ROUNDS=1 for a quick look.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fanOutRows } from './fan-out.ts';
import { longSessionRows } from './long-session.ts';
import { printTokenTable } from './token-economy.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const cycles = Number(process.env.BENCH_CYCLES ?? 100_000);
const root = fileURLToPath(new URL('..', import.meta.url));

type Result = Record<string, number | string>;

function measure(measurement: string, options: Record<string, string | number> = {}): Result {
  const args = Object.entries(options).flatMap(([name, value]) => [`--${name}`, String(value)]);
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', 'bench/measure.ts', measurement, ...args],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20 },
  );
  return JSON.parse(out.trim().split('\n').at(-1)!) as Result;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Per key, the median of each numeric field over `rounds` fresh-process runs, keys interleaved per round. */
function medians(jobs: Record<string, () => Result>): Record<string, Record<string, number>> {
  const values: Record<string, Result[]> = {};
  for (let round = 0; round < rounds; round++) {
    for (const [key, job] of Object.entries(jobs)) {
      values[key] = [...(values[key] ?? []), job()];
    }
  }
  return Object.fromEntries(
    Object.entries(values).map(([key, results]) => [
      key,
      Object.fromEntries(
        Object.keys(results[0]!)
          .filter((field) => typeof results[0]![field] === 'number')
          .map((field) => [field, median(results.map((result) => Number(result[field])))]),
      ),
    ]),
  );
}

const fixed = (value: number, digits = 1) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ratio = (a: number, b: number) => `${fixed(a / b, 2)}×`;

function cliStartMs(args: string[]): number {
  const times: number[] = [];
  for (let i = 0; i < 11; i++) {
    const start = performance.now();
    execFileSync(process.execPath, args, { cwd: root, stdio: 'ignore' });
    times.push(performance.now() - start);
  }
  return median(times);
}

const field = (table: Record<string, Record<string, number>>, name: string) =>
  Object.fromEntries(Object.entries(table).map(([key, values]) => [key, values[name]!]));

const speed = field(
  medians({
    'agentchart 10': () => measure('speed', { subject: 'agentchart', steps: 10 }),
    'xstate 10': () => measure('speed', { subject: 'xstate', steps: 10 }),
    'agentchart 100': () => measure('speed', { subject: 'agentchart', steps: 100 }),
    'xstate 100': () => measure('speed', { subject: 'xstate', steps: 100 }),
    'agentchart 10x1000': () => measure('speed', { subject: 'agentchart', steps: 10, deltas: 1000 }),
    'xstate 10x1000': () => measure('speed', { subject: 'xstate', steps: 10, deltas: 1000 }),
    'floor 10': () => measure('floor', { steps: 10 }),
    'floor 100': () => measure('floor', { steps: 100 }),
  }),
  'usPerStep',
);
const burst = medians({
  agentchart: () => measure('burst', { subject: 'agentchart' }),
  xstate: () => measure('burst', { subject: 'xstate' }),
});

console.log(
  '| per step (each run creates and disposes its agent; 3 deltas per step) | agentchart | bare XState loop | ratio |',
);
console.log('|---|--:|--:|--:|');
const row = (label: string, a: number, x: number, digits = 1) =>
  console.log(`| ${label} | ${fixed(a, digits)} | ${fixed(x, digits)} | ${ratio(a, x)} |`);
for (const steps of [10, 100]) {
  row(`S=${steps}: µs per step`, speed[`agentchart ${steps}`]!, speed[`xstate ${steps}`]!);
}
for (const steps of [10, 100]) {
  row(
    `S=${steps}: agentchart's actor traffic alone, no work (bench/xstate-floor.ts), µs per step`,
    speed[`floor ${steps}`]!,
    speed[`xstate ${steps}`]!,
  );
}
row('1,000 agents × 10 steps, 5 ms model: wall ms', burst.agentchart!.wallMs!, burst.xstate!.wallMs!, 0);
row('same burst: event-loop lag p99 ms', burst.agentchart!.lagP99Ms!, burst.xstate!.lagP99Ms!);
row('S=10, 1,000 deltas per step: µs per step', speed['agentchart 10x1000']!, speed['xstate 10x1000']!);
console.log(
  `| delta cost: a 1,000-delta step / a 3-delta step | ${ratio(speed['agentchart 10x1000']!, speed['agentchart 10']!)} | ${ratio(speed['xstate 10x1000']!, speed['xstate 10']!)} | |`,
);
// The fake model's own generator costs the same in both: what agentchart adds per delta is the difference.
const addedPerDelta =
  (speed['agentchart 10x1000']! -
    speed['agentchart 10']! -
    (speed['xstate 10x1000']! - speed['xstate 10']!)) /
  997;
console.log(
  `| µs agentchart adds per delta beyond the bare loop's (same generator) | ${fixed(addedPerDelta, 2)} | | |`,
);

const agentHeap = Number(measure('idle-heap', { kind: 'agent' }).bytes);
const conversationHeap = Number(measure('idle-heap', { kind: 'conversation' }).bytes);
const retainedBytes = Number(measure('retained', { cycles }).bytesPerAgent);
const createUs = medians({ create: () => measure('create') }).create!.usPerAgent!;
console.log('\n| memory and creation | agentchart |');
console.log('|---|--:|');
console.log(`| heap per idle agent after 5 turns (1,000 agents, after GC) | ${fixed(agentHeap / 1024)} KB |`);
console.log(
  `| heap per idle conversation (its log in a memory store) | ${fixed(conversationHeap / 1024)} KB |`,
);
console.log(
  `| heap retained per disposed agent (${cycles.toLocaleString('en-US')} create/run/dispose cycles, after GC) | ${fixed(retainedBytes)} B |`,
);
console.log(`| createAgent + dispose | ${fixed(createUs / 1000, 3)} ms |`);

const storeJob = (kind: string, steps: number) => () => measure('store', { kind, steps });
const stores = medians({
  'memory 10': storeJob('memory', 10),
  'file 10': storeJob('file', 10),
  'fsync 10': storeJob('fsync', 10),
  'memory 100': storeJob('memory', 100),
  'file 100': storeJob('file', 100),
  'fsync 100': storeJob('fsync', 100),
});
const appends = medians({
  file: () => measure('append', { kind: 'file' }),
  fsync: () => measure('append', { kind: 'fsync', count: 500 }),
  'file queued': () => measure('append', { kind: 'file', mode: 'queued', count: 50_000 }),
  'fsync queued': () => measure('append', { kind: 'fsync', mode: 'queued', count: 50_000 }),
});
console.log(
  '\n| session store under a real agent (each run creates, locks, releases and removes its session) | µs per step | / memory store | events/s |',
);
console.log('|---|--:|--:|--:|');
const storeLabels = { memory: 'memoryStore', file: 'fileStore', fsync: "fileStore, durability: 'fsync'" };
for (const steps of [10, 100]) {
  for (const [kind, label] of Object.entries(storeLabels)) {
    const { usPerStep, eventsPerSecond } = stores[`${kind} ${steps}`]!;
    const memory = stores[`memory ${steps}`]!.usPerStep!;
    console.log(
      `| S=${steps}: ${label} | ${fixed(usPerStep!)} | ${ratio(usPerStep!, memory)} | ${fixed(eventsPerSecond!, 0)} |`,
    );
  }
}
const rate = (key: string) => fixed(appends[key]!.eventsPerSecond!, 0);
console.log(
  `| fileStore, one event per append, each awaited | | | ${rate('file')} (fsync: ${rate('fsync')}) |`,
);
console.log(
  `| fileStore, 50,000 one-event appends made at once (group commit) | | | ${rate('file queued')} (fsync: ${rate('fsync queued')}) |`,
);

const tracing = medians({ tracing: () => measure('tracing') }).tracing!;
console.log(
  '\n| tracing (docs/telemetry.md), S=10, 3 deltas per step; the three take turns in one process | µs per step | CPU µs per step | CPU / off |',
);
console.log('|---|--:|--:|--:|');
const tracingRow = (label: string, mode: string) =>
  console.log(
    `| ${label} | ${fixed(tracing[`${mode}UsPerStep`]!)} | ${fixed(tracing[`${mode}CpuUsPerStep`]!)} | ${ratio(tracing[`${mode}CpuUsPerStep`]!, tracing.offCpuUsPerStep!)} |`,
  );
tracingRow('`telemetry: false`', 'off');
tracingRow('default, no tracer provider set (`@opentelemetry/api` installed)', 'none');
tracingRow("the SDK's provider making every span (no exporter)", 'sdk');

const cli = cliStartMs(['bin/agentchart.js', '--help']);
const bare = cliStartMs(['-e', '']);
console.log(`\nCLI start, agentchart --help: ${fixed(cli, 0)} ms (node -e '' alone: ${fixed(bare, 0)} ms)`);

console.log('\n| long session (compaction off while it grows) | cost |');
console.log('|---|---|');
for (const row of await longSessionRows()) console.log(row);
console.log(
  '\n| fan-out: one parent, work handed to children (scripted, 5 ms model) | background agents | `task` calls one after another |',
);
console.log('|---|--:|--:|');
for (const row of await fanOutRows()) console.log(row);
console.log();
await printTokenTable();
console.log(
  `\nnode ${process.version}, medians of ${rounds} rounds in fresh processes (long-session rows: median of 3)`,
);
