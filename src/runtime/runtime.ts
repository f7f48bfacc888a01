import type { DataSource } from "typeorm";
import type { Config } from "../config/config";
import { configureAccountCache } from "../auth/account-cache";
import { startReadReplicas } from "../db/read-replicas-setup";
import { stopReplicaSet, type ReplicaSet } from "../db/replicas";
import { startDeliveryWorker, type DeliveryWorker } from "../delivery/delivery-worker";
import type { Logger } from "../http/logger";
import { connectFeedWake } from "../shared-state/feed-wake";
import { connectRedis, type SharedRedis } from "../shared-state/redis";
import { startSharedState } from "../shared-state/shared-state";
import { startFeedSequencer, type FeedSequencer } from "./feed-sequencer";
import { LiveEventHub } from "./live-events-hub";

// Everything that lives as long as the process, started in one place and stopped in one order.
// main.ts starts it once, after the database is prepared and before the app is built; the test
// app does the same. An app built without one (createApp alone, in a test) starts its own,
// without the delivery worker.
//
// Start, in this order (each may use what came before):
//   1. the account cache's lifetime (ACCOUNT_CACHE_TTL_MS), emptied;
//   2. the Redis connection (REDIS_URL), shared by everything below and by the rate limiter;
//   3. read replicas and their health checks, with the read-your-writes positions (in Redis or
//      in process);
//   4. shared state: walk positions in Redis, the account cache following key changes;
//   5. the live events (GraphQL subscriptions read them), woken through Redis by the other
//      instances, and the feed sequencer, which places committed events in the pull feed and
//      wakes the live events (here at once, elsewhere through Redis);
//   6. the delivery worker (DELIVERY_WORKER), which fans events out to webhooks.
// Stop, on SIGTERM (main.ts), once the HTTP side has drained (src/http/drain.ts):
//   the worker stops claiming at once (`stopClaiming`, while connections drain) and finishes its
//   sends in flight; the live events end (their WebSockets were closed by the drain), the
//   sequencer places what the last writes committed and stops; then 4, 3 (replica pools and
//   checks), 2 are closed, in reverse order. The DataSource is the caller's: it is destroyed
//   after `stop()`.

export interface RuntimeOptions {
  dataSource: DataSource;
  config: Config;
  logger: Logger;
  /** Run the delivery worker in this process (main: DELIVERY_WORKER; the test app: no). */
  deliveryWorker: boolean;
}

/** The process-lived parts, and the one way to stop them. */
export interface Runtime {
  /** The instance's Redis connection; null without REDIS_URL. */
  readonly redis: SharedRedis | null;
  /** The read replicas in the rotation's charge; undefined without DATABASE_REPLICA_URLS. */
  readonly replicas: ReplicaSet | undefined;
  readonly worker: DeliveryWorker | null;
  /** The instance's live events, which GraphQL subscriptions read. */
  readonly liveEvents: LiveEventHub;
  /** Places committed events in the pull feed (every instance runs one). */
  readonly sequencer: FeedSequencer;
  /** The worker stops claiming new work now; `stop()` waits for its sends in flight. */
  stopClaiming(): void;
  /** Stops everything, in the reverse order of the start; once. */
  stop(): Promise<void>;
}

/** Starts everything process-lived for `dataSource` (see the order above). */
export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { dataSource, config, logger } = options;
  // The cache belongs to the DataSource (key management forgets accounts through it).
  configureAccountCache(dataSource, config.accountCacheTtlMs);
  const redis = connectRedis(config.sharedState);
  let replicas: ReplicaSet | undefined;
  try {
    replicas = await startReadReplicas(dataSource, config, logger, redis);
  } catch (error) {
    await redis?.close();
    throw error;
  }
  const shared = startSharedState(redis, dataSource, logger);
  const liveEvents = new LiveEventHub(dataSource, {
    pollIntervalMs: config.subscriptions.pollIntervalMs,
    pollIdleMs: config.subscriptions.pollIdleMs,
    queueMaxEvents: config.subscriptions.queueMaxEvents,
    onPollError: (error) =>
      logger.warn({ err: error instanceof Error ? error.message : String(error) }, "live events: read failed"),
  });
  const feedWake = redis ? connectFeedWake(redis, logger, (upTo) => liveEvents.wake(upTo)) : null;
  const sequencer = startFeedSequencer({
    dataSource,
    logger,
    onPlaced(lastPosition) {
      liveEvents.wake(lastPosition);
      feedWake?.announce(lastPosition);
    },
  });
  const worker = options.deliveryWorker ? startDeliveryWorker({ dataSource, logger, config: config.delivery }) : null;

  let workerStopped: Promise<void> | null = null;
  let stopped: Promise<void> | null = null;
  const stopClaiming = () => {
    workerStopped ??= worker?.stop() ?? Promise.resolve();
  };
  return {
    redis,
    replicas,
    worker,
    liveEvents,
    sequencer,
    stopClaiming,
    stop() {
      stopped ??= (async () => {
        stopClaiming();
        // Deliveries in flight are sent and recorded (each bounded by DELIVERY_TIMEOUT_MS) first.
        await workerStopped;
        liveEvents.close();
        await sequencer.stop();
        await feedWake?.close();
        await shared.close();
        await stopReplicaSet(dataSource);
        await redis?.close();
      })();
      return stopped;
    },
  };
}
