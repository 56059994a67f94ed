// `bullmq` and `ioredis` are optional peer dependencies, loaded here when `agentchart/bullmq` is imported:
// without them the import is one `ConfigError` naming what to install (see loadPeerPackages), not Node's
// bare "Cannot find package". The other files of this folder import their types only.
import type * as BullMQ from 'bullmq';
import type * as IORedis from 'ioredis';
import { loadPeerPackages } from '../providers/peer-package.ts';

const loaded = await loadPeerPackages({
  bullmq: () => import('bullmq'),
  ioredis: () => import('ioredis'),
});

export const bullmq: typeof BullMQ = loaded.bullmq;
export const ioredis: typeof IORedis = loaded.ioredis;
