import type { WalkPosition, WalkPositionStore } from "../domain/users/walk-positions";
import type { Logger } from "../http/logger";
import { withTimeout, type SharedRedis } from "./redis";

/** A connected but silent Redis is cut off after this long: the page skips to its position instead. */
const COMMAND_TIMEOUT_MS = 1000;

/**
 * get_user_list walk positions in Redis (`<REDIS_KEY_PREFIX>walk:<project>:<filters>:<position>`,
 * JSON, expiring with the walk memory): every instance continues every walk. A failed round trip
 * is a miss (the page skips to its position, as a jump does) and is logged at most once a minute.
 */
export class RedisWalkPositions implements WalkPositionStore {
  private lastWarnedAt = 0;

  constructor(
    private readonly redis: SharedRedis,
    private readonly logger: Logger,
  ) {}

  async recall(key: string): Promise<WalkPosition | null> {
    // Not connected: a miss now, rather than a wait in ioredis's queue for the next reconnect
    // (its back-off grows to 2 s). A connected but silent Redis is cut off by COMMAND_TIMEOUT_MS.
    const connection = this.redis.commands;
    if (connection.status !== "ready") return this.miss(new Error(`Redis connection ${connection.status}`));
    try {
      const raw = await withTimeout(connection.get(this.redis.key(`walk:${key}`)), COMMAND_TIMEOUT_MS);
      return raw === null ? null : (JSON.parse(raw) as WalkPosition);
    } catch (error) {
      this.warn(error);
      return null;
    }
  }

  async remember(key: string, position: WalkPosition, ttlMs: number): Promise<void> {
    const connection = this.redis.commands;
    if (connection.status !== "ready") return void this.miss(new Error(`Redis connection ${connection.status}`));
    try {
      await withTimeout(
        connection.set(this.redis.key(`walk:${key}`), JSON.stringify(position), "PX", ttlMs),
        COMMAND_TIMEOUT_MS,
      );
    } catch (error) {
      this.warn(error);
    }
  }

  private miss(error: Error): null {
    this.warn(error);
    return null;
  }

  private warn(error: unknown): void {
    const now = Date.now();
    if (now - this.lastWarnedAt < 60_000) return;
    this.lastWarnedAt = now;
    this.logger.warn(
      { err: error instanceof Error ? error.message : String(error) },
      "walk positions (Redis) unavailable: get_user_list pages skip to their position until it is back",
    );
  }
}
