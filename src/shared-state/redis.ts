import Redis from "ioredis";

/**
 * A Redis connection for state the instances share. Few retries and short timeouts: shared state
 * speeds things up or tells others sooner, and an unreachable Redis must degrade it (walks skip to
 * their position, key changes wait for the cache TTL), never stall a request.
 */
export function openRedis(url: string, options: { lazyConnect?: boolean } = {}): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 1000,
    enableOfflineQueue: true,
    lazyConnect: options.lazyConnect ?? false,
    // As in rate-limit.ts: a disconnect of an already closed socket would otherwise hold the
    // process open for ioredis's 2 s default.
    disconnectTimeout: 0,
  });
}

/**
 * Closes a connection, politely if Redis answers, at once otherwise: a QUIT sent while ioredis
 * is still trying to reconnect waits behind its next attempt (up to 2 s), and that pending attempt
 * would hold the process open after everything else has closed.
 */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === "ready") await redis.quit().catch(() => redis.disconnect());
  else redis.disconnect();
}
