import Redis from "ioredis";
import type { SharedStateConfig } from "../config/config";

// The one way this service talks to Redis (REDIS_URL): rate-limit budgets, walk positions, the
// read-your-writes positions of replicas and the key-change channel all go through the
// connection `connectRedis` opens, under the one REDIS_KEY_PREFIX. Redis speeds things up or
// tells other instances sooner; an unreachable Redis must degrade that (limits let requests
// through, walks skip to their position, reads use the primary, key changes wait for the cache
// TTL), never stall a request: few retries and short timeouts.

const OPTIONS = {
  maxRetriesPerRequest: 1,
  connectTimeout: 2000,
  // No commandTimeout on the connection: its timer runs before the poll phase that would read a
  // reply, so a process busy for a second would fail commands Redis had answered (reads then go
  // to the primary, budgets uncounted). A user that must not wait bounds its own call (withTimeout).
  enableOfflineQueue: true,
  // Commands of one tick go out as one pipeline (the rate limiter's and the positions' lookups).
  enableAutoPipelining: true,
  // A disconnect of an already closed socket would otherwise hold the process open for ioredis's
  // 2 s default (a stopped app, Jest's workers).
  disconnectTimeout: 0,
} as const;

/** A connection with this service's options; `lazyConnect` for a one-off publish (the CLI). */
export function openRedis(url: string, options: { lazyConnect?: boolean } = {}): Redis {
  return new Redis(url, { ...OPTIONS, lazyConnect: options.lazyConnect ?? false });
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

/** What an instance shares through Redis: one command connection and the key prefix. */
export interface SharedRedis {
  /** The command connection every user of Redis in this process shares. */
  readonly commands: Redis;
  /** `name` under REDIS_KEY_PREFIX: every key and channel of the service is named through this. */
  key(name: string): string;
  /** A connection of its own for a subscription (a subscribed connection runs no other command). */
  subscriber(): Redis;
  /** Reports connection errors to `listener` (each user says what it degrades to). */
  onError(listener: (error: Error) => void): void;
  close(): Promise<void>;
}

/** `name` under REDIS_KEY_PREFIX: every key and channel of the service is named through this. */
export const redisKey = (config: SharedStateConfig, name: string) => `${config.keyPrefix}${name}`;

/** Opens the instance's Redis connection, or null without REDIS_URL (everything stays in process). */
export function connectRedis(config: SharedStateConfig): SharedRedis | null {
  if (!config.redisUrl) return null;
  const url = config.redisUrl;
  const commands = openRedis(url);
  const subscribers: Redis[] = [];
  const listeners: ((error: Error) => void)[] = [];
  commands.on("error", (error: Error) => {
    for (const listener of listeners) listener(error);
  });
  return {
    commands,
    key: (name) => redisKey(config, name),
    subscriber() {
      const subscriber = openRedis(url);
      subscribers.push(subscriber);
      return subscriber;
    },
    onError: (listener) => void listeners.push(listener),
    async close() {
      await Promise.all([commands, ...subscribers].map(closeRedis));
    },
  };
}

/** `call`, or a rejection after `ms`: a connected Redis that stops answering must not hold a request. */
export function withTimeout<T>(call: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([call, timeout]).finally(() => clearTimeout(timer));
}

/** Calls `warn` at most once per `intervalMs`: an outage reports itself without flooding the log. */
export function throttled(warn: (error: Error) => void, intervalMs = 60_000): (error: Error) => void {
  let lastAt = -Infinity;
  return (error) => {
    const now = Date.now();
    if (now - lastAt < intervalMs) return;
    lastAt = now;
    warn(error);
  };
}
