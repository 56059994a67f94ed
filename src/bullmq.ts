// agentchart/bullmq: jobs on BullMQ workers (`bullmq` and `ioredis` are optional peer dependencies:
// install them to use this subpath). Listed explicitly, like the main entry point.
export { cancelTask, type EnqueueOptions, enqueueJob, type QueuedTask } from './bullmq/enqueue-job.ts';
export { type FollowOptions, followJob } from './bullmq/follow-job.ts';
export { redisFromUrl } from './bullmq/redis-client.ts';
export { startWorker, type TaskWorker, type TaskWorkerOptions } from './bullmq/start-worker.ts';
export type { TaskProgress, TaskResult } from './bullmq/task-queue.ts';
export {
  continueMessage,
  type DurableTask,
  type DurableTaskOptions,
  type DurableTaskResult,
  runDurableTask,
} from './runtime/jobs/durable-task.ts';
export type { DurableSupervision } from './runtime/jobs/supervised-durable.ts';
export type { TaskSupervisionHost } from './runtime/jobs/supervised-task.ts';
