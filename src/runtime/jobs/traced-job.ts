import type { SystemTracing } from '../../telemetry/system-tracing.ts';
import type { Agent } from '../agent-handle.ts';
import type { CreateAgentOptions } from '../options.ts';
import type { JobStandings } from './job-standings.ts';
import type { JobProgress } from './job-types.ts';
import { type Job, type JobOptions, type JobPlace, runJob } from './run-job.ts';
import type { TaskSupervisionHost } from './supervised-task.ts';

/**
 * An agent system's `runJob`: the job `jobId` (each task's session.start names it and the task's place, so
 * the logs alone show a job's progress), its tasks' agents under one `job` span when tracing is on — also
 * an agent a supervised restart had to resume from its log, which would otherwise begin a trace of its own.
 * Its progress is kept in `standings` (`AgentSystem.jobs`), and still reaches the host's `onProgress`.
 */
export function tracedJob(
  system: {
    jobId: string;
    tracing: SystemTracing;
    standings: JobStandings;
    createAgent: (options: CreateAgentOptions, job?: JobPlace) => Promise<Agent>;
    supervision: TaskSupervisionHost;
  },
  options: JobOptions,
): Job {
  const traced = system.tracing.traceJob(
    () => options.tasks.length,
    ({ job, ...created }: CreateAgentOptions & { job?: JobPlace }) => system.createAgent(created, job),
  );
  const createAgent = (created: CreateAgentOptions, job?: JobPlace) =>
    traced.createAgent(job ? { ...created, job } : created);
  const { resumeAgent } = system.supervision;
  const supervision: TaskSupervisionHost = {
    ...system.supervision,
    resumeAgent: async (id, given) => resumeAgent(id, await traced.withJobTrace(given)),
  };
  const { jobId, standings } = system;
  const { onProgress } = options;
  // Progress comes after an await (a task's agent is created first), so the job is begun below in time.
  const kept = (progress: JobProgress) => {
    standings.progress(jobId, progress);
    onProgress?.(progress);
  };
  // Anything but a function (or nothing) goes to `runJob` as given, which refuses it by name.
  const progressOption = onProgress === undefined || typeof onProgress === 'function' ? kept : onProgress;
  const run = runJob({ createAgent, jobId, supervision }, { ...options, onProgress: progressOption });
  // Begun once `runJob` accepted the options (a bad job throws before it is a job).
  standings.begin(jobId, options.tasks.length);
  const end = () => standings.end(jobId);
  run.result.then(end, end);
  traced.endWith(run.result);
  return run;
}
