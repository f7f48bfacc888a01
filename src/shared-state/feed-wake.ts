import { randomUUID } from "node:crypto";
import type { Logger } from "../http/logger";
import { closeRedis, throttled, type SharedRedis } from "./redis";

// Tells the other instances that the feed advanced (`<REDIS_KEY_PREFIX>feed-advanced`; the
// message is `<instance>:<last position>`), so their live events read it at once instead of at
// their next fallback read. A wake-up signal only: the events themselves are read from the feed,
// so a message lost (Redis away, a subscription reconnecting) costs latency, never an event.

const FEED_CHANNEL = "feed-advanced";

export interface FeedWake {
  /** Announces that this instance placed events up to `lastPosition`. */
  announce(lastPosition: number): void;
  close(): Promise<void>;
}

/** Follows other instances' announcements (calling `onAdvance` with their position) and sends this one's. */
export function connectFeedWake(redis: SharedRedis, logger: Logger, onAdvance: (upTo?: number) => void): FeedWake {
  const instance = randomUUID();
  const channel = redis.key(FEED_CHANNEL);
  const subscriber = redis.subscriber();
  const warn = throttled((error) =>
    logger.warn({ err: error.message }, "feed wake-ups (Redis) unavailable: other instances' events come by polling"),
  );
  subscriber.on("error", warn);
  let subscribedOnce = false;
  subscriber.on("ready", () => {
    // Announcements sent while the subscription was down are lost: read once to catch up.
    if (subscribedOnce) onAdvance();
  });
  subscriber.on("message", (from: string, message: string) => {
    if (from !== channel) return;
    const [sender, position] = message.split(":");
    if (sender === instance) return;
    const upTo = Number(position);
    onAdvance(Number.isSafeInteger(upTo) ? upTo : undefined);
  });
  void subscriber.subscribe(channel).then(
    () => (subscribedOnce = true),
    () => undefined,
  );
  return {
    announce(lastPosition) {
      redis.commands
        .publish(channel, `${instance}:${lastPosition}`)
        .catch((error: unknown) => warn(error instanceof Error ? error : new Error(String(error))));
    },
    close: () => closeRedis(subscriber),
  };
}
