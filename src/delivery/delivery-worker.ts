import type { DeliveryConfig } from "../config/config";
import {
  claimDueDeliveries,
  claimDueEmails,
  claimUndispatchedEvents,
  deliveryWorkIsDue,
  disableEndpoints,
  recordDeliveryAttempts,
  recordEmailAttempts,
  writeFanOut,
  type ClaimedDelivery,
  type ClaimedEmail,
  type DeliveryAttemptResult,
  type EmailAttemptResult,
} from "../data/delivery.data";
import { pruneEvents } from "../data/event-feed.data";
import { readActiveEndpoints } from "../data/webhooks.data";
import { createRequestContext, type RequestContext } from "../domain/context";
import type { ProcessState } from "../domain/process-state";
import { inTransaction } from "../domain/transaction";
import type { Logger } from "../http/logger";
import { createEmailSender, type EmailSender } from "./email-sender";
import { nextRetryAt } from "./retry-schedule";
import { postWebhook } from "./webhook-sender";

// The delivery worker (contract §16): fans committed events out to the matching endpoints, sends
// due webhook deliveries and queued trigger emails, and records every attempt. It runs inside the
// service (DELIVERY_WORKER, default on) or alone (`regapi worker`); several may share one
// MySQL/MariaDB database, each claiming disjoint rows (SKIP LOCKED).

export interface DeliveryWorkerOptions {
  /** The process state its transactions run in (the runtime's, or a test's). */
  state: ProcessState;
  logger: Logger;
  config: DeliveryConfig;
  /** Rows claimed per round, per kind. */
  batchSize?: number;
  /** Events pruned per statement batch (bounded, so a backlog of old events never makes one long transaction). */
  pruneBatchSize?: number;
  /** How often the worker looks for events past the retention (EVENT_RETENTION_DAYS). */
  pruneIntervalMs?: number;
  /**
   * Whether the fan-out places in the feed the events no sequencer has (default: yes). The runtime
   * runs a feed sequencer and says no: events are then fanned out once placed, and the sequencer,
   * which wakes the live events, is the only one placing them.
   */
  placeInFeed?: boolean;
}

export interface DeliveryWorker {
  /** Work may be waiting (events were placed in the feed): look now, and poll often again. */
  wake(): void;
  /** Stops claiming, waits for the deliveries in flight to be sent and recorded. */
  stop(): Promise<void>;
  /** Counts since start, for logs and benchmarks. */
  readonly stats: {
    dispatched: number;
    delivered: number;
    retried: number;
    failed: number;
    emailsSent: number;
    pruned: number;
  };
}

/** The longest wait of an idle worker between two looks: 8 poll intervals, at most 5 s (never below the poll interval). */
export const idleWaitMaxOf = (config: Pick<DeliveryConfig, "pollIntervalMs">) =>
  Math.max(config.pollIntervalMs, Math.min(config.pollIntervalMs * 8, 5000));

/** A claim lasts past the send timeout, so a live worker always records before another may take the row again. */
export const leaseMsOf = (config: Pick<DeliveryConfig, "timeoutMs">) => config.timeoutMs * 2 + 1000;

export function startDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { state, logger, config } = options;
  const batchSize = options.batchSize ?? 50;
  const ctx: RequestContext = createRequestContext(state, "delivery-worker");
  const emails: EmailSender = createEmailSender(config);
  const stats = { dispatched: 0, delivered: 0, retried: 0, failed: 0, emailsSent: 0, pruned: 0 };
  const pruneBatchSize = options.pruneBatchSize ?? 500;
  const pruneIntervalMs = options.pruneIntervalMs ?? 60_000;
  let nextPruneAt = 0;
  let stopping = false;
  let wake: (() => void) | null = null;

  // Counted once the transaction has committed: inTransaction may run its work more than once.
  const fanOut = async () => {
    const dispatched = await fanOutOnce();
    stats.dispatched += dispatched;
    return dispatched;
  };
  // At the default REPEATABLE READ, not at READ COMMITTED as the feed placing: with two workers
  // writing through two Galera nodes, the fan-out at READ COMMITTED sent some events twice
  // (test/scale/galera-service.test.ts), and exactly once comes before the tail of a failover.
  const fanOutOnce = () =>
    inTransaction(ctx, "delivery.fan_out", async ({ em }) => {
      const events = await claimUndispatchedEvents(em, batchSize * 4, { placedOnly: options.placeInFeed === false });
      if (events.length === 0) return 0;
      const endpoints = await readActiveEndpoints(em, [...new Set(events.map((event) => event.organizationId))]);
      const pairs = events.flatMap((event) =>
        endpoints
          .filter(
            (endpoint) =>
              endpoint.organizationId === event.organizationId &&
              endpoint.events.includes(event.type) &&
              (endpoint.groupIds === null || endpoint.groupIds.includes(event.groupId)),
          )
          .map((endpoint) => ({ eventId: event.id, endpointId: endpoint.id })),
      );
      await writeFanOut(em, events, pairs, new Date());
      return events.length;
    });

  const claim = <T>(work: (em: RequestContext["em"], now: Date, leaseUntil: Date) => Promise<T>) =>
    inTransaction(ctx, "delivery.claim", ({ em }) => {
      const now = new Date();
      return work(em, now, new Date(now.getTime() + leaseMsOf(config)));
    });

  async function deliver(delivery: ClaimedDelivery): Promise<DeliveryAttemptResult> {
    const attemptedAt = new Date();
    if (!delivery.endpointActive) {
      return {
        deliveryId: delivery.deliveryId,
        attemptedAt,
        statusCode: null,
        durationMs: 0,
        error: "endpoint disabled",
        logged: false,
        next: { state: "failed" },
      };
    }
    const body = JSON.stringify({
      id: delivery.eventId,
      type: delivery.type,
      created_at: delivery.eventCreatedAt.toISOString(),
      group_id: delivery.groupId,
      // Who caused the event, as the feed carries it; an additive member, which receivers written
      // for a body without it ignore.
      actor: delivery.actor === null ? null : (JSON.parse(delivery.actor) as unknown),
      data: JSON.parse(delivery.data) as unknown,
    });
    const response = await postWebhook({
      url: delivery.url,
      body,
      secret: delivery.secret,
      eventId: delivery.eventId,
      timeoutMs: config.timeoutMs,
      allowPrivate: config.webhookAllowPrivate,
    });
    const ok = response.statusCode !== null && response.statusCode >= 200 && response.statusCode < 300;
    const error = ok ? null : (response.error ?? `HTTP ${response.statusCode}`);
    let next: DeliveryAttemptResult["next"];
    if (ok) next = { state: "delivered", at: new Date() };
    else if (response.statusCode === 410) next = { state: "failed" };
    else {
      const retryAt = nextRetryAt(delivery.attemptCount, delivery.queuedAt, new Date(), config);
      next = retryAt ? { state: "pending", retryAt } : { state: "failed" };
    }
    return { deliveryId: delivery.deliveryId, attemptedAt, ...response, error, logged: true, next };
  }

  async function sendEmail(email: ClaimedEmail): Promise<EmailAttemptResult> {
    try {
      await emails.send(email);
      return { id: email.id, error: null, next: { state: "sent", at: new Date() } };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const retryAt = nextRetryAt(email.attemptCount, email.createdAt, new Date(), config);
      return { id: email.id, error: message, next: retryAt ? { state: "queued", retryAt } : { state: "failed" } };
    }
  }

  // Events older than the retention go in bounded batches, one short transaction each; a full
  // batch means more are waiting, so the next round prunes again instead of waiting the interval.
  async function prune(): Promise<number> {
    if (Date.now() < nextPruneAt) return 0;
    const horizon = new Date(Date.now() - config.eventRetentionDays * 24 * 3600 * 1000);
    const pruned = await inTransaction(ctx, "delivery.prune", ({ em }) => pruneEvents(em, horizon, pruneBatchSize));
    stats.pruned += pruned;
    if (pruned < pruneBatchSize) nextPruneAt = Date.now() + pruneIntervalMs;
    return pruned;
  }

  async function round(): Promise<number> {
    const dispatched = await fanOut();
    const deliveries = await claim((em, now, lease) => claimDueDeliveries(em, batchSize, now, lease));
    const queuedEmails = await claim((em, now, lease) => claimDueEmails(em, batchSize, now, lease));
    const [webhookResults, emailResults] = await Promise.all([
      Promise.all(deliveries.map(deliver)),
      Promise.all(queuedEmails.map(sendEmail)),
    ]);
    if (webhookResults.length + emailResults.length > 0) {
      const gone = [
        ...new Set(
          webhookResults
            .filter((result) => result.statusCode === 410)
            .map((result) => deliveries.find((d) => d.deliveryId === result.deliveryId)!.endpointId),
        ),
      ];
      await inTransaction(ctx, "delivery.record_results", async ({ em }) => {
        // The endpoints before their deliveries (docs/locking.md): disabling fails every pending
        // delivery of the endpoint, including rows another worker is recording.
        await disableEndpoints(em, gone, "the receiver answered 410 Gone");
        await recordDeliveryAttempts(em, webhookResults);
        await recordEmailAttempts(em, emailResults);
      });
      for (const endpointId of gone) logger.warn({ endpointId }, "webhook endpoint disabled: receiver answered 410");
    }
    for (const result of webhookResults) {
      if (result.next.state === "delivered") stats.delivered++;
      else if (result.next.state === "pending") stats.retried++;
      else stats.failed++;
    }
    stats.emailsSent += emailResults.filter((result) => result.next.state === "sent").length;
    return dispatched + deliveries.length + queuedEmails.length;
  }

  // While idle, the worker asks one question (deliveryWorkIsDue) instead of claiming, and asks
  // less often the longer nothing comes: the wait doubles from DELIVERY_POLL_MS up to
  // idleWaitMaxMs. Work found, or a wake (the runtime's, when events were placed in the feed here
  // or, through Redis, by another instance), starts over at once.
  const idleWaitMaxMs = idleWaitMaxOf(config);
  let idleWaitMs = config.pollIntervalMs;
  let probeFirst = false;
  const idle = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wake = null;
        resolve();
      }, idleWaitMs);
      idleWaitMs = Math.min(idleWaitMs * 2, idleWaitMaxMs);
      wake = () => {
        clearTimeout(timer);
        wake = null;
        resolve();
      };
    });
  const cycle = async (): Promise<number> => {
    const pruned = await prune();
    if (probeFirst && pruned === 0 && !(await deliveryWorkIsDue(state.dataSource.manager, new Date()))) return 0;
    return pruned + (await round());
  };

  const running = (async () => {
    while (!stopping) {
      let worked = 0;
      try {
        worked = await cycle();
      } catch (error) {
        // A lost database connection or a deadlock: claims not recorded are taken again after their lease.
        logger.error({ err: error }, "delivery round failed; retrying after the poll interval");
      }
      probeFirst = worked === 0;
      if (worked > 0) idleWaitMs = config.pollIntervalMs;
      else if (!stopping) await idle();
    }
  })();

  logger.info(
    {
      emails: emails.kind,
      ...(emails.kind === "eml" ? { mailDir: config.mailDir } : {}),
      pollIntervalMs: config.pollIntervalMs,
    },
    "delivery worker started",
  );
  return {
    stats,
    wake() {
      probeFirst = false;
      idleWaitMs = config.pollIntervalMs;
      wake?.();
    },
    async stop() {
      stopping = true;
      wake?.();
      await running;
      emails.close();
      logger.info(stats, "delivery worker stopped");
    },
  };
}
