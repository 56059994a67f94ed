import { resolve } from 'node:path';
import { z } from 'zod/v4';
import { configFileLimit, readRegularText, type TextRead } from '../../core/read-limited.ts';
import { messageOf } from '../../errors/describe-value.ts';
import type { Job, JobOptions, JobTaskResult } from '../../runtime/jobs/run-job.ts';
import { taskGraph } from '../../runtime/jobs/task-graph.ts';
import { fileStore } from '../../session/file-store.ts';
import { type AgentFlags, providerFor, workspaceOf } from '../agent-flags.ts';
import { cliAgentSystem } from '../agent-system.ts';
import { CliError } from '../cli-error.ts';
import { permissionsOf } from '../cli-permissions.ts';
import { sessionsFolder } from '../session-folders.ts';
import { type CliIo, line, personOut } from '../terminal/io.ts';
import { graphLines, hasGraph, jobTasks, sessionTag } from './job-graph.ts';
import { printKeptBranches } from './worktrees.ts';

const isolation = z.literal('worktree').optional();

/**
 * The job file: `{ "tasks": [{ "prompt": "...", "instructions"?: "...", "id"?: "a", "dependsOn"?: ["b"],
 * "isolation"?: "worktree" }], "concurrency"?: 4, "onDependencyFailure"?: "skip" | "run",
 * "isolation"?: "worktree" }` (the file's `isolation` is every task's default).
 */
export const jobFileSchema = z.strictObject({
  tasks: z
    .array(
      z.strictObject({
        prompt: z.string().min(1),
        instructions: z.string().min(1).optional(),
        id: z
          .string()
          .regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, ".", "_" or "-"')
          .optional(),
        dependsOn: z.array(z.string().min(1)).optional(),
        isolation,
      }),
    )
    .min(1),
  concurrency: z.int().min(1).default(4),
  onDependencyFailure: z.enum(['skip', 'run']).optional(),
  isolation,
});

export type JobFile = z.output<typeof jobFileSchema>;

export type JobCommandOptions = {
  io: CliIo;
  /** The system that runs the tasks: model, tools, workspace, store and mode already chosen from flags. */
  system: { runJob(options: JobOptions): Job };
  /** NDJSON on stdout, one result per line in task order; progress goes to stderr. */
  json?: boolean;
  /** Overrides the file's `concurrency`. */
  concurrency?: number;
  /** Cancels the job (wire it to SIGINT). */
  signal?: AbortSignal;
  /** The job file already read and checked (`runJobCommand` reads it before it looks for a model). */
  spec?: JobFile;
};

/** `--redis`, `--postgres`, `--queue`: run on BullMQ workers with sessions in PostgreSQL (see distributed.ts). */
export type DistributedFlags = { redis?: string; postgres?: string; queue?: string };

export type JobFlags = AgentFlags & { concurrency?: number } & DistributedFlags;

/**
 * `agentchart job FILE.json`: the job's agents run side by side, so nobody is asked on the terminal —
 * calls that need approval are denied (headless) unless the mode allows them. Ctrl-C cancels the job.
 */
export async function runJobCommand(file: string, flags: JobFlags, io: CliIo): Promise<number> {
  // The file first: a missing or malformed job file is the error to report, whatever else is missing.
  const spec = await readJobFile(resolve(io.cwd, file));
  const cwd = await workspaceOf(io, flags.cwd);
  const { provider } = await providerFor(io, flags);
  const store = fileStore(sessionsFolder(cwd, io.env, flags.sessionDir, io.cwd));
  // The MCP servers and hooks of the settings files go to the system as they are.
  const { mode, ...fromSettings } = await permissionsOf(io, flags, cwd);
  const { system } = cliAgentSystem({
    io,
    provider,
    store,
    cwd,
    mode,
    ...fromSettings,
    ...(flags.maxSteps !== undefined ? { maxSteps: flags.maxSteps } : {}),
    prompt: false,
  });
  const cancel = new AbortController();
  const onInterrupt = () => cancel.abort();
  process.once('SIGINT', onInterrupt);
  try {
    return await jobCommand(file, {
      io,
      system,
      signal: cancel.signal,
      spec,
      ...(flags.json ? { json: true } : {}),
      ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
    });
  } finally {
    process.off('SIGINT', onInterrupt);
    await system.dispose();
  }
}

/**
 * Runs every task of the file as its own agent on `system`, at most `concurrency` at once, printing a line
 * as each finishes and a summary at the end. Resolves with the exit code: 0 when every task completed, 130 when cancelled, 1
 * otherwise. A missing or malformed file is a `CliError` with exit code 2.
 *
 * @example
 * const { system } = cliAgentSystem({ io, provider, store, cwd, mode, prompt: false });
 * process.exitCode = await jobCommand('jobs.json', { io, system, json: flags.json });
 */
export async function jobCommand(file: string, options: JobCommandOptions): Promise<number> {
  const { io } = options;
  const spec = options.spec ?? (await readJobFile(resolve(io.cwd, file)));
  const concurrency = options.concurrency ?? spec.concurrency;
  const total = spec.tasks.length;
  const ui = personOut(io, options.json);
  line(ui, `agentchart: job ${file}: ${total} task(s), ${concurrency} at a time`);
  const graph = hasGraph(spec);
  if (graph) for (const text of graphLines(spec)) line(ui, text);
  const job = options.system.runJob({
    tasks: jobTasks(spec, graph ? sessionTag() : undefined),
    concurrency,
    ...(spec.onDependencyFailure ? { onDependencyFailure: spec.onDependencyFailure } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    onProgress: (progress) => {
      if (progress.type !== 'task.finished') return;
      const label = spec.tasks[progress.index]?.id;
      const waiting = progress.waiting > 0 ? ` · ${progress.waiting} waiting` : '';
      line(ui, `${progressLine(progress.result, progress.finished, total, label)}${waiting}`);
    },
  });
  const results = await job.result;
  if (options.json) for (const result of results) line(io.stdout, JSON.stringify(result));
  if (graph) for (const text of graphLines(spec, results)) line(ui, text);
  line(ui, summary(results));
  printKeptBranches(ui, results);
  if (results.every((result) => result.reason === 'completed')) return 0;
  // Cancelled with Ctrl-C: 130, as for `run`.
  return options.signal?.aborted ? 130 : 1;
}

/** Reads and checks a job file; every problem is a `CliError` (exit 2) that says what to fix. */
export async function readJobFile(path: string): Promise<JobFile> {
  let read: TextRead;
  try {
    read = await readRegularText(path, configFileLimit);
  } catch (error) {
    const missing = (error as { code?: unknown }).code === 'ENOENT';
    throw new CliError(
      missing
        ? `no such file: ${path}; give the path of a job file (see agentchart job --help)`
        : `cannot read the job file ${path}: ${messageOf(error)}`,
      { exitCode: 2, cause: error },
    );
  }
  if (!('text' in read)) throw new CliError(`the job file ${path} ${read.refused}`, { exitCode: 2 });
  let json: unknown;
  try {
    json = JSON.parse(read.text);
  } catch (error) {
    const reason = messageOf(error);
    throw new CliError(`the job file ${path} is not JSON: ${reason}`, { exitCode: 2, cause: error });
  }
  const parsed = jobFileSchema.safeParse(json);
  if (!parsed.success) {
    throw new CliError(
      `the job file ${path} is not a job: ${z.prettifyError(parsed.error)}\n` +
        'Expected: { "tasks": [{ "prompt": "...", "instructions": "...", "id": "a", "dependsOn": ["b"] }], ' +
        '"concurrency": 4 }',
      { exitCode: 2 },
    );
  }
  try {
    taskGraph(`the job file ${path}`, parsed.data.tasks);
  } catch (error) {
    // An unknown dependency or a cycle is the file's mistake: said before any task starts.
    throw new CliError(messageOf(error), { exitCode: 2, cause: error });
  }
  return parsed.data;
}

export function progressLine(result: JobTaskResult, finished: number, total: number, label?: string): string {
  const width = String(total).length;
  const detail = result.error ?? result.text.replace(/\s+/g, ' ').trim();
  const excerpt = detail.length > 72 ? `${detail.slice(0, 71)}…` : detail;
  const session = result.sessionId ? ` · session ${result.sessionId}` : '';
  const denied = result.denied.length > 0 ? ` · ${deniedCalls(result.denied)}` : '';
  const named = label !== undefined ? ` (${label})` : '';
  return `[${String(finished).padStart(width)}/${total}] task ${result.index}${named} ${result.reason}${session}${denied}${excerpt ? ` · ${excerpt}` : ''}`;
}

/** `N tasks: 7 completed, 1 model_error` with tokens, reasons in first-seen order, and the denied calls. */
export function summary(results: readonly JobTaskResult[]): string {
  const counts = new Map<string, number>();
  let inputTokens = 0;
  let outputTokens = 0;
  const denied = results.flatMap((result) => result.denied);
  for (const result of results) {
    counts.set(result.reason, (counts.get(result.reason) ?? 0) + 1);
    inputTokens += result.usage.inputTokens;
    outputTokens += result.usage.outputTokens;
  }
  const parts = [...counts].map(([reason, count]) => `${count} ${reason}`).join(', ');
  const withDenied = results.filter((result) => result.denied.length > 0).length;
  const deniedPart = denied.length > 0 ? ` · ${deniedCalls(denied)} in ${withDenied} task(s)` : '';
  return `agentchart: ${results.length} task(s): ${parts}${deniedPart} · ${inputTokens} input / ${outputTokens} output tokens`;
}

/** `2 calls denied (bash ×2)`: how many, and of which tools. */
function deniedCalls(denied: readonly { tool: string }[]): string {
  const tools = new Map<string, number>();
  for (const { tool } of denied) tools.set(tool, (tools.get(tool) ?? 0) + 1);
  const named = [...tools].map(([tool, count]) => (count > 1 ? `${tool} ×${count}` : tool)).join(', ');
  return `${denied.length} ${denied.length === 1 ? 'call' : 'calls'} denied (${named})`;
}
