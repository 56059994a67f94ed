import type { SystemTracing } from '../../telemetry/system-tracing.ts';
import type { Agent } from '../agent-handle.ts';
import type { CreateAgentOptions } from '../options.ts';
import { type Job, type JobOptions, type JobPlace, runJob } from './run-job.ts';
import type { TaskSupervisionHost } from './supervised-task.ts';

/**
 * An agent system's `runJob`: the job `jobId` (each task's session.start names it and the task's place, so
 * the logs alone show a job's progress), its tasks' agents under one `job` span when tracing is on — also
 * an agent a supervised restart had to resume from its log, which would otherwise begin a trace of its own.
 */
export function tracedJob(
  system: {
    jobId: string;
    tracing: SystemTracing;
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
  const run = runJob({ createAgent, jobId: system.jobId, supervision }, options);
  traced.endWith(run.result);
  return run;
}
