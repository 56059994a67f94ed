// Schemas for the arguments of `runJob` and `job.cancel`. Each is parsed at the call; a bad value is a
// ConfigError naming the argument.
import { z } from 'zod/v4';
import { count, must, nonEmptyString, positiveInteger } from '../../core/host-schema.ts';
import { outputFields } from '../../tools/output-schema.ts';
import { supervisionPolicySchema } from '../../tools/supervision-option.ts';
import { agentFields, isolationSchema } from '../call-schemas.ts';
import { idSchema } from '../host-guards.ts';
import type { JobOptions, JobProgress } from './job-types.ts';

const abortSignal = z.custom<AbortSignal>(
  (value) =>
    typeof (value as { aborted?: unknown } | null)?.aborted === 'boolean' &&
    typeof (value as { addEventListener?: unknown }).addEventListener === 'function',
  must('an AbortSignal'),
);

/** `runJob(options)`. */
export const jobOptionsSchema = z.strictObject(
  {
    tasks: z.array(
      z.strictObject(
        {
          prompt: nonEmptyString,
          id: idSchema.optional(),
          ...agentFields,
          isolation: isolationSchema.optional(),
          ...outputFields,
          supervision: supervisionPolicySchema.optional(),
          dependsOn: z.array(nonEmptyString, must('an array of task ids')).optional(),
        },
        must('a task object'),
      ),
      must('an array of tasks'),
    ),
    concurrency: positiveInteger,
    onProgress: z
      .custom<(progress: JobProgress) => void>((value) => typeof value === 'function', must('a function'))
      .optional(),
    signal: abortSignal.optional(),
    supervision: supervisionPolicySchema.optional(),
    onDependencyFailure: z.enum(['skip', 'run'], must("'skip' or 'run'")).optional(),
    dependencyPrompt: z
      .custom<NonNullable<JobOptions['dependencyPrompt']>>(
        (value) => typeof value === 'function',
        must('a function'),
      )
      .optional(),
  },
  must('an object'),
);

/** `job.cancel(index)`: any whole number; one that names no task is refused by the job. */
export const jobCancelSchema = z.strictObject({ index: count.optional() });
