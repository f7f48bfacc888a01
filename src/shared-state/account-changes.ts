import type { SharedStateConfig } from "../config/config";
import type { AccountCache } from "../auth/account-cache";
import type { Logger } from "../http/logger";
import { closeRedis, openRedis, redisKey, type SharedRedis } from "./redis";

// A revoked, rotated or created API key is announced on a Redis channel
// (`<REDIS_KEY_PREFIX>account-changed`, the message is the Api-Id) by whoever changed it, the CLI
// or an instance; every running instance forgets the account as the message arrives, so the next
// request on any instance reads the row again. Pub/sub delivers only to connected subscribers: an
// instance whose subscription was down forgets every kept account when it is back, and the cache
// TTL (ACCOUNT_CACHE_TTL_MS) bounds what a lost message can cost.

const ACCOUNT_CHANNEL = "account-changed";

/** Subscribes this instance's account cache to key changes; returns the closer. */
export function followAccountChanges(
  redis: SharedRedis,
  accounts: AccountCache,
  logger: Logger,
): { close(): Promise<void> } {
  const subscriber = redis.subscriber();
  const channel = redis.key(ACCOUNT_CHANNEL);
  let subscribedOnce = false;
  let warned = false;
  subscriber.on("error", (error: Error) => {
    if (warned) return;
    warned = true;
    logger.warn(
      { err: error.message },
      "API key changes (Redis) unavailable: other processes' changes apply within ACCOUNT_CACHE_TTL_MS",
    );
  });
  subscriber.on("ready", () => {
    warned = false;
    // ioredis subscribes again by itself after a reconnect; what was announced meanwhile is lost.
    if (subscribedOnce) accounts.forgetAll();
  });
  subscriber.on("message", (from: string, message: string) => {
    const id = Number(message);
    if (from === channel && Number.isSafeInteger(id)) accounts.forget(id);
  });
  void subscriber.subscribe(channel).then(
    () => (subscribedOnce = true),
    () => undefined,
  );
  return { close: () => closeRedis(subscriber) };
}

/**
 * Announces that API account `apiId` changed (REDIS_URL must be set). Resolves with how many
 * instances heard it, or with the reason it could not be sent (they then honour the change
 * within their cache TTL).
 */
export async function announceAccountChange(
  config: SharedStateConfig & { redisUrl: string },
  apiId: number,
): Promise<{ heardBy: number } | { failed: string }> {
  const publisher = openRedis(config.redisUrl, { lazyConnect: true });
  // The socket's own error (ECONNREFUSED, …) says more than the rejected connect ("Connection is closed.").
  let cause: Error | null = null;
  publisher.on("error", (error: Error) => (cause ??= error));
  try {
    await publisher.connect();
    return { heardBy: await publisher.publish(redisKey(config, ACCOUNT_CHANNEL), String(apiId)) };
  } catch (error) {
    return { failed: (cause ?? (error instanceof Error ? error : new Error(String(error)))).message };
  } finally {
    await closeRedis(publisher);
  }
}
