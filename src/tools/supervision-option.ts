// The supervision policy a host gives an agent type, `backgroundAgentTools` or a job task, parsed where it
// enters (a bad one is a `ConfigError` naming it, with a did-you-mean for a misspelt key), and the spec its
// child's link and log record.
import { z } from 'zod/v4';
import { count, milliseconds, must, oneOf } from '../core/host-schema.ts';
import type { SupervisionSpec } from '../session/types.ts';

/**
 * How a background child or a job task is supervised. `restart: 'never'` (the default): a failure is its
 * result. `'on-failure'`: a turn that ends `model_error` (after the provider's own retries), or a run that
 * breaks off (its actor failed, its log stopped writing), is continued from the child's own log after
 * `backoffMs` (default 1 s, doubled at each restart), at most `maxRestarts` times (default 3); then the
 * failure is its result. Nothing that completed runs again: the tool results are in the log.
 *
 * @example
 * backgroundAgentTools({ agentTypes: { tester: { description: 'Runs tests.', supervision: { restart: 'on-failure', maxRestarts: 2 } } } });
 */
export type SupervisionPolicy = {
  restart: 'never' | 'on-failure';
  /** Restarts at most (default 3); 0 restarts nothing but reports the failure as spent. */
  maxRestarts?: number;
  /** The wait before the first restart in milliseconds (default 1000), doubled at each one after. */
  backoffMs?: number;
};

/** The defaults of `restart: 'on-failure'`: three restarts, the first after one second. */
export const defaultSupervision: Readonly<Omit<SupervisionSpec, 'restart'>> = {
  maxRestarts: 3,
  backoffMs: 1_000,
};

/** `SupervisionPolicy`, strict: an unknown key is refused (and the nearest known one suggested). */
export const supervisionPolicySchema = z.strictObject(
  {
    restart: oneOf(['never', 'on-failure']),
    maxRestarts: count.optional(),
    backoffMs: milliseconds.optional(),
  },
  must("a supervision policy ({ restart: 'never' | 'on-failure', maxRestarts?, backoffMs? })"),
);

/** What the log records of a parsed policy: nothing for `never`, else the policy with its defaults. */
export function supervisionSpecOf(policy: SupervisionPolicy | undefined): SupervisionSpec | undefined {
  if (!policy || policy.restart === 'never') return undefined;
  return {
    restart: 'on-failure',
    maxRestarts: policy.maxRestarts ?? defaultSupervision.maxRestarts,
    backoffMs: policy.backoffMs ?? defaultSupervision.backoffMs,
  };
}
