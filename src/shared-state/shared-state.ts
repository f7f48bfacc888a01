import type { DataSource } from "typeorm";
import { configureWalkPositions } from "../domain/users/walk-positions";
import type { Logger } from "../http/logger";
import { followAccountChanges } from "./account-changes";
import type { SharedRedis } from "./redis";
import { RedisWalkPositions } from "./redis-walk-positions";

/**
 * With Redis: get_user_list walk positions in Redis, and this instance's account cache following
 * key changes announced by others (docs/scale-out.md lists what else each instance keeps to
 * itself). Without it, nothing to start: both stay in process. Returns the closer; the
 * connection itself is closed by whoever opened it.
 */
export function startSharedState(
  redis: SharedRedis | null,
  dataSource: DataSource,
  logger: Logger,
): { close(): Promise<void> } {
  if (!redis) return { close: () => Promise.resolve() };
  configureWalkPositions(dataSource, new RedisWalkPositions(redis, logger));
  const accounts = followAccountChanges(redis, dataSource, logger);
  return {
    async close() {
      configureWalkPositions(dataSource, null);
      await accounts.close();
    },
  };
}
