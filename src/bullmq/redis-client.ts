import type { ConnectionOptions } from 'bullmq';
import type { Redis, RedisOptions } from 'ioredis';
import { ioredis } from './peers.ts';

/**
 * A Redis client for what agentchart sends beside BullMQ (cancel flags and their pub/sub channel), on the
 * same server as the queue. `owned`: this made it, so it must `quit` it.
 */
export function clientFor(connection: ConnectionOptions | string): { client: Redis; owned: boolean } {
  if (typeof connection === 'string') return { client: redisFromUrl(connection), owned: true };
  if (connection instanceof ioredis.Redis) return { client: connection, owned: false };
  return {
    client: new ioredis.Redis({ ...(connection as RedisOptions), maxRetriesPerRequest: null }),
    owned: true,
  };
}

/**
 * An ioredis client for BullMQ: `maxRetriesPerRequest: null`, which BullMQ's blocking workers require (with
 * a limit a command throws while Redis restarts, and leaves a client that keeps reconnecting), so commands
 * wait for Redis to come back instead.
 */
export function redisFromUrl(url: string): Redis {
  return new ioredis.Redis(url, { maxRetriesPerRequest: null });
}
