import type { DataSource } from "typeorm";
import type { Config } from "../config/config";
import { AccountCache } from "../auth/account-cache";
import { ReadCommittedPool } from "../db/read-committed-pool";
import { startReadReplicas } from "../db/read-replicas-setup";
import type { ReplicaSet } from "../db/replicas";
import { leaseMsOf, startDeliveryWorker, type DeliveryWorker } from "../delivery/delivery-worker";
import { processStateOf, type ProcessState } from "../domain/process-state";
import { MemoryWalkPositions } from "../domain/users/walk-positions";
import type { Logger } from "../http/logger";
import { connectFeedWake } from "../shared-state/feed-wake";
import { connectRedis, type SharedRedis } from "../shared-state/redis";
import { RedisWalkPositions } from "../shared-state/redis-walk-positions";
import { startSharedState } from "../shared-state/shared-state";
import { startFeedSequencer, type FeedSequencer } from "./feed-sequencer";
import { LiveEventHub } from "./live-events-hub";
import { waitAtMost } from "./bounded-wait";

// Everything that lives as long as the process, started in one place and stopped in one order.
// main.ts starts it once, after the database is prepared and before the app is built; the test
// app does the same; `regapi worker` starts one that only delivers. An app built without one
// (createApp alone, in a test) starts its own, without the delivery worker. What requests use of
// it, the process state (src/domain/process-state.ts), is handed to the app, which puts it in
// every request context: no module keeps process state of its own.
//
// Start, in this order (each may use what came before):
//   1. the process state's own parts: SQLite's turns, rerun counts, the account cache
//      (ACCOUNT_CACHE_TTL_MS), the READ COMMITTED sessions of the feed's placings (MySQL/MariaDB,
//      connected on first use);
//   2. the Redis connection (REDIS_URL), shared by everything below and by the rate limiter;
//   3. read replicas and their health checks, with the read-your-writes positions (in Redis or
//      in process); walk positions (in Redis or in process);
//   4. shared state: the account cache following key changes;
//   5. the live events (GraphQL subscriptions read them), woken through Redis by the other
//      instances, and the feed sequencer, which places committed events in the pull feed and
//      wakes the live events (here at once, elsewhere through Redis);
//   6. the delivery worker (DELIVERY_WORKER), which fans events out to webhooks.
// Stop, on SIGTERM (main.ts), once the HTTP side has drained (src/http/drain.ts):
//   the worker stops claiming at once (`stopClaiming`, while connections drain) and finishes its
//   sends in flight; the live events end (their WebSockets were closed by the drain), the
//   sequencer places what the last writes committed and stops (each of these two waits is bounded,
//   so a pass stuck on an unanswered query is logged and left behind); the READ COMMITTED sessions
//   close; then 4, 3 (replica pools and checks), 2 are closed, in reverse order. The DataSource is the caller's: it is destroyed
//   after `stop()`.

export interface RuntimeOptions {
  dataSource: DataSource;
  config: Config;
  logger: Logger;
  /** Run the delivery worker in this process (main: DELIVERY_WORKER; the test app: no). */
  deliveryWorker: boolean;
  /**
   * Whether this process serves requests (default): a worker alone (`regapi worker`) reads only
   * on the primary and caches no account, so it starts neither replicas nor shared state.
   */
  servesRequests?: boolean;
  /**
   * SQLite's turns and the rerun counts of a state made earlier on the same DataSource (a test's
   * database, whose domain calls run beside the app's requests); default: new ones.
   */
  shareWith?: Pick<ProcessState, "sqliteTurns" | "reruns">;
}

/** The process-lived parts, and the one way to stop them. */
export interface Runtime {
  /** What requests use: handed to the app (AppDependencies) and carried by every request context. */
  readonly state: ProcessState;
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
  const servesRequests = options.servesRequests ?? true;
  const accounts = new AccountCache(dataSource, config.accountCacheTtlMs);
  const redis = connectRedis(config.sharedState);
  let replicas: ReplicaSet | undefined;
  try {
    if (servesRequests) replicas = await startReadReplicas(dataSource, config, logger, redis);
  } catch (error) {
    await redis?.close();
    throw error;
  }
  const walkPositions = redis ? new RedisWalkPositions(redis, logger) : new MemoryWalkPositions();
  const readCommitted = dataSource.options.type === "better-sqlite3" ? undefined : new ReadCommittedPool(dataSource);
  const state = processStateOf(dataSource, {
    ...options.shareWith,
    accounts,
    replicas,
    walkPositions,
    readCommitted,
  });
  const shared = servesRequests ? startSharedState(redis, accounts, logger) : null;
  let worker: DeliveryWorker | null = null;
  // Events placed in the feed, here or (through Redis) elsewhere, wake the worker: idle, it backs off.
  const feed = startFeed(state, config, logger, redis, () => worker?.wake());
  // The sequencer places every event; the worker fans out what it placed.
  if (options.deliveryWorker)
    worker = startDeliveryWorker({ state, logger, config: config.delivery, placeInFeed: false });

  let workerStopped: Promise<void> | null = null;
  let stopped: Promise<void> | null = null;
  const stopClaiming = () => {
    workerStopped ??= worker?.stop() ?? Promise.resolve();
  };
  return {
    state,
    redis,
    replicas,
    worker,
    liveEvents: feed.liveEvents,
    sequencer: feed.sequencer,
    stopClaiming,
    stop() {
      stopped ??= (async () => {
        stopClaiming();
        // Deliveries in flight are sent and recorded (each bounded by DELIVERY_TIMEOUT_MS) first.
        // Each wait is bounded by a claim's lease: past it another worker takes the rows again anyway.
        const bound = leaseMsOf(config.delivery);
        await waitAtMost(workerStopped ?? Promise.resolve(), bound, "delivery worker", logger);
        await waitAtMost(feed.close(), bound, "feed sequencer and live events", logger);
        await readCommitted?.close();
        await shared?.close();
        await replicas?.stop();
        await redis?.close();
      })();
      return stopped;
    },
  };
}

/** Step 5: the live events and the feed sequencer that wakes them (here at once, elsewhere through Redis). */
function startFeed(
  state: ProcessState,
  config: Config,
  logger: Logger,
  redis: SharedRedis | null,
  onEventsPlaced: () => void,
) {
  const liveEvents = new LiveEventHub(state.dataSource, {
    pollIntervalMs: config.subscriptions.pollIntervalMs,
    pollIdleMs: config.subscriptions.pollIdleMs,
    queueMaxEvents: config.subscriptions.queueMaxEvents,
    onPollError: (error) =>
      logger.warn({ err: error instanceof Error ? error.message : String(error) }, "live events: read failed"),
  });
  const feedWake = redis
    ? connectFeedWake(redis, logger, (upTo) => {
        liveEvents.wake(upTo);
        onEventsPlaced();
      })
    : null;
  const sequencer = startFeedSequencer({
    state,
    logger,
    pollMinMs: config.delivery.feedPollMs,
    pollMaxMs: config.delivery.feedPollIdleMs,
    passIntervalMs: config.delivery.feedPassIntervalMs,
    onPlaced(lastPosition) {
      liveEvents.wake(lastPosition);
      feedWake?.announce(lastPosition);
      onEventsPlaced();
    },
  });
  return {
    liveEvents,
    sequencer,
    /** The live events end, the sequencer places what the last writes committed, then the wake channel closes. */
    async close() {
      liveEvents.close();
      await sequencer.stop();
      await feedWake?.close();
    },
  };
}
