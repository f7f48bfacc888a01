import type { DataSource } from "typeorm";
import type { SharedStateConfig } from "../config/config";
import { configureWalkPositions } from "../domain/users/walk-positions";
import type { Logger } from "../http/logger";
import { followAccountChanges } from "./account-changes";
import { closeRedis, openRedis } from "./redis";
import { RedisWalkPositions } from "./redis-walk-positions";

/**
 * With REDIS_URL: get_user_list walk positions in Redis, and this instance's account cache
 * following key changes announced by others (docs/scale-out.md lists what else each instance
 * keeps to itself). Without it, nothing to start: both stay in process. Returns the closer.
 */
export function startSharedState(
  config: SharedStateConfig,
  dataSource: DataSource,
  logger: Logger,
): { close(): Promise<void> } {
  if (!config.redisUrl) return { close: () => Promise.resolve() };
  const redis = openRedis(config.redisUrl);
  redis.on("error", () => undefined); // reported once a minute by the walk-position store
  configureWalkPositions(dataSource, new RedisWalkPositions(redis, config.keyPrefix, logger));
  const accounts = followAccountChanges(config.redisUrl, config.keyPrefix, dataSource, logger);
  return {
    async close() {
      configureWalkPositions(dataSource, null);
      await Promise.all([accounts.close(), closeRedis(redis)]);
    },
  };
}
