// `npm run imports` (part of `npm test`): the layering of src/ as a rule the tools enforce, not a reviewer.
// Every import inside src/ must go to the same folder or to a lower floor, and no module may reach itself
// through its imports (no cycles). The floors, from the ground up, are explained in docs/architecture.md.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Each folder of src/ (or `.` for the entry points) and its floor: imports may only go down. */
export const floors: Readonly<Record<string, number>> = {
  errors: 0,
  core: 1,
  providers: 2,
  session: 3,
  // The PostgreSQL store (agentchart/postgres) is a session store with a server behind it.
  postgres: 4,
  tools: 4,
  machines: 4,
  // Permissions decide about tools (their name and access) and fold allowances from the session log, so
  // they stand on tools and session; the tool-check actor, the runtime and the CLI consult them.
  permissions: 5,
  // MCP servers as tool sources: they make tools (floor 4) and log to the session (floor 3), beside
  // permissions; the runtime starts them and the CLI lists them.
  mcp: 5,
  // What a replay answers with instead of running a tool: the recording's results, read from the session
  // log (floor 3) for tools (floor 4); the runtime offers them when it re-runs a recording.
  recorded: 5,
  // Hooks run host functions and shell commands (with the bash tool's process and environment rules) and
  // write decisions in the session log's vocabulary; they read a handler's `if` with the permission rules
  // and tell scripts the permission mode in Claude Code's names, so they stand on permissions. The hook
  // actor and the CLI's settings use them.
  hooks: 6,
  actors: 7,
  // What the .agentchart folders (the user's and the workspace's) hold: settings files naming permissions
  // and MCP servers (floor 5), and skills; the runtime reads them when a host asks.
  settings: 7,
  // OpenTelemetry spans made from what the session log records (floor 3); the runtime attaches them to its
  // agents and the BullMQ jobs hand their trace context on, so they sit below both.
  telemetry: 7,
  runtime: 8,
  // The chart graphs (the walk over the machine definitions) serve both diagrams/ and the inspector's
  // drawings, so they sit below the inspector.
  diagrams: 8,
  // Re-running a recording: an agent system (floor 8) built to answer from the log, driven input by input
  // and compared with it. Time travel in the inspector and `replay --check` in the CLI stand on it.
  replay: 9,
  inspector: 10,
  // Jobs on BullMQ workers (agentchart/bullmq) run tasks on agent systems; only the CLI sits above them.
  bullmq: 9,
  cli: 11,
  '.': 12,
};

/**
 * Imports that go up or sideways on purpose, each with the sentence that defends it. Keep it short: an
 * entry here is a design decision a reader must be able to follow.
 */
export const allowedUpward: ReadonlyArray<{ from: string; to: string; why: string }> = [];

export type Violation = { kind: 'upward' | 'cycle' | 'unknown-folder'; detail: string };

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function folderOf(file: string): string {
  const parts = relative(src, file).split('/');
  return parts.length === 1 ? '.' : parts[0]!;
}

/** The relative imports of each file of src/, resolved to files of src/ (typescript's own scanner). */
export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(src)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => normalize(join(dirname(file), name)))
      .filter((target) => target.startsWith(`${src}/`) && target.endsWith('.ts'));
    graph.set(file, targets);
  }
  return graph;
}

export function checkImports(graph = importGraph()): Violation[] {
  const violations: Violation[] = [];
  const name = (file: string) => relative(root, file);
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    if (floors[from] === undefined)
      violations.push({ kind: 'unknown-folder', detail: `${name(file)}: give src/${from} a floor` });
    for (const target of targets) {
      const to = folderOf(target);
      if (to === from || floors[to] === undefined || floors[from] === undefined) continue;
      if (floors[to]! < floors[from]!) continue;
      if (allowedUpward.some((allowed) => allowed.from === name(file) && allowed.to === name(target)))
        continue;
      violations.push({
        kind: 'upward',
        detail: `${name(file)} -> ${name(target)} (${from} may not import ${to})`,
      });
    }
  }
  for (const cycle of cycles(graph)) violations.push({ kind: 'cycle', detail: cycle.map(name).join(' -> ') });
  return violations;
}

/** Every strongly connected group of more than one file (Tarjan), each as a path back to its start. */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || (graph.get(file) ?? []).includes(file)) found.push([...group.reverse(), file]);
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const violations = checkImports();
  for (const violation of violations) console.error(`imports: ${violation.kind}: ${violation.detail}`);
  if (violations.length > 0) process.exitCode = 1;
  else console.log('imports: every import goes down a floor; no cycles');
}
