import type { AccountCache } from "../auth/account-cache";
import type { Logger } from "../http/logger";
import { followAccountChanges } from "./account-changes";
import type { SharedRedis } from "./redis";

/**
 * With Redis: this instance's account cache following key changes announced by others (walk
 * positions in Redis are the runtime's RedisWalkPositions; docs/scale-out.md lists what else each
 * instance keeps to itself). Without it, nothing to start. Returns the closer; the connection
 * itself is closed by whoever opened it.
 */
export function startSharedState(
  redis: SharedRedis | null,
  accounts: AccountCache,
  logger: Logger,
): { close(): Promise<void> } {
  if (!redis) return { close: () => Promise.resolve() };
  return followAccountChanges(redis, accounts, logger);
}
