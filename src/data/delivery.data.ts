import type { EntityManager } from "typeorm";
import { WebhookAttempt, WebhookDelivery } from "../entities";
import { insertRows } from "../db/insert-rows";
import { placeEventsInFeed, takeFeedPositions } from "./event-feed.data";
import { sqlDate } from "./events.data";
import { selectRows, sqlPlaceholders } from "./sql-rows";

// The delivery worker's statements (src/delivery/). On MySQL/MariaDB every claim is
// `SELECT … FOR UPDATE SKIP LOCKED` on one table, so several workers take disjoint rows without
// waiting on each other; SQLite has one writer (one process), so it needs no row locks.

const skipLocked = (em: EntityManager) =>
  em.connection.options.type === "better-sqlite3" ? "" : " FOR UPDATE SKIP LOCKED";

export interface UndispatchedEvent {
  id: number;
  organizationId: number;
  groupId: number;
  type: string;
  /** It has its feed position already (the feed sequencer placed it); the fan-out places the others. */
  placed: boolean;
}

/**
 * Locks up to `limit` events not yet fanned out to endpoints, oldest first; `placedOnly`: only
 * those a feed sequencer has placed already (the fan-out then never holds an event the sequencer
 * is about to place, which would leave it to the fan-out, without the sequencer's wake-up).
 */
export async function claimUndispatchedEvents(
  em: EntityManager,
  limit: number,
  options: { placedOnly: boolean } = { placedOnly: false },
): Promise<UndispatchedEvent[]> {
  const placed = options.placedOnly ? " AND feed_position IS NOT NULL" : "";
  const rows = await selectRows(
    em,
    { id: "int", organization_id: "int", group_id: "int", type: "text", feed_position: "intOrNull" },
    `SELECT id, organization_id, group_id, type, feed_position FROM event
      WHERE dispatched_at IS NULL${placed} ORDER BY id LIMIT ?${skipLocked(em)}`,
    [limit],
  );
  return rows.map((row) => ({
    id: row.id,
    organizationId: row.organization_id,
    groupId: row.group_id,
    type: row.type,
    placed: row.feed_position !== null,
  }));
}

/**
 * One delivery row per (event, endpoint) pair, then the events are marked fanned out. Events the
 * feed sequencer has not placed yet (it runs in every instance; the worker may run alone) are
 * placed in the feed here, in id order, at positions taken under the feed row's lock.
 */
export async function writeFanOut(
  em: EntityManager,
  events: readonly Pick<UndispatchedEvent, "id" | "placed">[],
  pairs: readonly { eventId: number; endpointId: number }[],
  now: Date,
): Promise<void> {
  await insertRows(
    em,
    WebhookDelivery,
    pairs.map((pair) => ({
      eventId: pair.eventId,
      endpointId: pair.endpointId,
      state: "pending" as const,
      attemptCount: 0,
      nextAttemptAt: now,
      createdAt: now,
      deliveredAt: null,
    })),
  );
  if (events.length === 0) return;
  const unplaced = events.filter((event) => !event.placed).map((event) => event.id);
  const first = unplaced.length > 0 ? await takeFeedPositions(em, unplaced.length) : 0;
  await placeEventsInFeed(em, unplaced, first, { eventIds: events.map((event) => event.id), at: now });
}

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  deliveryId: number;
  endpointId: number;
  url: string;
  secret: string;
  endpointActive: boolean;
  eventId: string;
  type: string;
  groupId: number;
  data: string;
  /** JSON text of the event's actor; null for events recorded before actors were. */
  actor: string | null;
  eventCreatedAt: Date;
  /** When the delivery was (re)queued: the retry window counts from here. */
  queuedAt: Date;
  /** Attempts including this one. */
  attemptCount: number;
}

/**
 * Claims up to `limit` due deliveries: they are locked, their attempt counted and their next
 * attempt moved to `leaseUntil`, so no other worker takes them meanwhile, and a worker that dies
 * after the claim leaves them to be taken again once the lease is over (at least once).
 */
export async function claimDueDeliveries(
  em: EntityManager,
  limit: number,
  now: Date,
  leaseUntil: Date,
): Promise<ClaimedDelivery[]> {
  const due = await selectRows(
    em,
    { id: "int" },
    `SELECT id FROM webhook_delivery WHERE state = 'pending' AND next_attempt_at <= ?
      ORDER BY next_attempt_at, id LIMIT ?${skipLocked(em)}`,
    [sqlDate(em, now), limit],
  );
  if (due.length === 0) return [];
  const ids = due.map((row) => row.id);
  await em.query(
    `UPDATE webhook_delivery SET next_attempt_at = ?, attempt_count = attempt_count + 1
      WHERE id IN (${sqlPlaceholders(ids.length)})`,
    [sqlDate(em, leaseUntil), ...ids],
  );
  return readClaimedWebhookDeliveries(em, ids);
}

/** The claimed deliveries with what sending them needs: their event and their endpoint. */
async function readClaimedWebhookDeliveries(em: EntityManager, ids: number[]): Promise<ClaimedDelivery[]> {
  const rows = await selectRows(
    em,
    {
      id: "int",
      endpoint_id: "int",
      url: "text",
      secret: "text",
      active: "flag",
      public_id: "text",
      type: "text",
      group_id: "int",
      data: "text",
      actor: "textOrNull",
      event_created_at: "date",
      created_at: "date",
      attempt_count: "int",
    },
    `SELECT d.id, d.endpoint_id, w.url, w.secret, w.active, e.public_id, e.type, e.group_id, e.data, e.actor,
            e.created_at AS event_created_at, d.created_at, d.attempt_count
       FROM webhook_delivery d
       JOIN event e ON e.id = d.event_id
       JOIN webhook_endpoint w ON w.id = d.endpoint_id
      WHERE d.id IN (${sqlPlaceholders(ids.length)}) ORDER BY d.id`,
    ids,
  );
  return rows.map((row) => ({
    deliveryId: row.id,
    endpointId: row.endpoint_id,
    url: row.url,
    secret: row.secret,
    endpointActive: row.active,
    eventId: row.public_id,
    type: row.type,
    groupId: row.group_id,
    data: row.data,
    actor: row.actor,
    eventCreatedAt: row.event_created_at,
    queuedAt: row.created_at,
    attemptCount: row.attempt_count,
  }));
}

/** What one attempt came to, and what happens next to its delivery. */
export interface DeliveryAttemptResult {
  deliveryId: number;
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** Null when no request was made (endpoint switched off): nothing is logged as an attempt. */
  logged: boolean;
  next: { state: "delivered"; at: Date } | { state: "failed" } | { state: "pending"; retryAt: Date };
}

/** Logs the attempts and moves each delivery on (delivered, failed, or due again later). */
export async function recordDeliveryAttempts(em: EntityManager, sent: readonly DeliveryAttemptResult[]): Promise<void> {
  if (sent.length === 0) return;
  // An endpoint deleted while its deliveries were in flight took them along (cascade): skip those.
  const remaining = await selectRows(
    em,
    { id: "int" },
    `SELECT id FROM webhook_delivery WHERE id IN (${sqlPlaceholders(sent.length)})`,
    sent.map((result) => result.deliveryId),
  );
  const kept = new Set(remaining.map((row) => row.id));
  const results = sent.filter((result) => kept.has(result.deliveryId));
  await insertRows(
    em,
    WebhookAttempt,
    results
      .filter((result) => result.logged)
      .map((result) => ({
        deliveryId: result.deliveryId,
        attemptedAt: result.attemptedAt,
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        error: result.error === null ? null : result.error.slice(0, 500),
      })),
  );
  const delivered = results.filter((result) => result.next.state === "delivered");
  if (delivered.length > 0) {
    await em.query(
      `UPDATE webhook_delivery SET state = 'delivered', delivered_at = ? WHERE id IN (${sqlPlaceholders(delivered.length)})`,
      [sqlDate(em, delivered[0].attemptedAt), ...delivered.map((result) => result.deliveryId)],
    );
  }
  const failed = results.filter((result) => result.next.state === "failed");
  if (failed.length > 0) {
    await em.query(
      `UPDATE webhook_delivery SET state = 'failed' WHERE id IN (${sqlPlaceholders(failed.length)})`,
      failed.map((result) => result.deliveryId),
    );
  }
  for (const result of results) {
    if (result.next.state !== "pending") continue;
    await em.query(`UPDATE webhook_delivery SET next_attempt_at = ? WHERE id = ?`, [
      sqlDate(em, result.next.retryAt),
      result.deliveryId,
    ]);
  }
}

/** Switches endpoints off (a 410); their waiting deliveries fail with them (redeliver after re-enabling). */
export async function disableEndpoints(
  em: EntityManager,
  endpointIds: readonly number[],
  reason: string,
): Promise<void> {
  if (endpointIds.length === 0) return;
  const list = sqlPlaceholders(endpointIds.length);
  await em.query(`UPDATE webhook_endpoint SET active = 0, disabled_reason = ? WHERE id IN (${list})`, [
    reason,
    ...endpointIds,
  ]);
  await em.query(`UPDATE webhook_delivery SET state = 'failed' WHERE state = 'pending' AND endpoint_id IN (${list})`, [
    ...endpointIds,
  ]);
}

/** A claimed trigger email. */
export interface ClaimedEmail {
  id: number;
  to: string;
  subject: string;
  body: string;
  messageId: string | null;
  createdAt: Date;
  attemptCount: number;
}

/** Claims due queued emails as claimDueDeliveries claims deliveries (lease, attempt counted). */
export async function claimDueEmails(
  em: EntityManager,
  limit: number,
  now: Date,
  leaseUntil: Date,
): Promise<ClaimedEmail[]> {
  const due = await selectRows(
    em,
    { id: "int" },
    `SELECT id FROM outbox_email WHERE state = 'queued' AND (next_attempt_at IS NULL OR next_attempt_at <= ?)
      ORDER BY id LIMIT ?${skipLocked(em)}`,
    [sqlDate(em, now), limit],
  );
  if (due.length === 0) return [];
  const ids = due.map((row) => row.id);
  await em.query(
    `UPDATE outbox_email SET next_attempt_at = ?, attempt_count = attempt_count + 1 WHERE id IN (${sqlPlaceholders(ids.length)})`,
    [sqlDate(em, leaseUntil), ...ids],
  );
  const rows = await selectRows(
    em,
    {
      id: "int",
      to_addresses: "text",
      subject: "text",
      body: "text",
      message_id: "textOrNull",
      created_at: "date",
      attempt_count: "int",
    },
    `SELECT id, to_addresses, subject, body, message_id, created_at, attempt_count FROM outbox_email
      WHERE id IN (${sqlPlaceholders(ids.length)}) ORDER BY id`,
    ids,
  );
  return rows.map((row) => ({
    id: row.id,
    to: row.to_addresses,
    subject: row.subject,
    body: row.body,
    messageId: row.message_id,
    createdAt: row.created_at,
    attemptCount: row.attempt_count,
  }));
}

export interface EmailAttemptResult {
  id: number;
  error: string | null;
  next: { state: "sent"; at: Date } | { state: "failed" } | { state: "queued"; retryAt: Date };
}

export async function recordEmailAttempts(em: EntityManager, results: readonly EmailAttemptResult[]): Promise<void> {
  for (const result of results) {
    const error = result.error === null ? null : result.error.slice(0, 500);
    if (result.next.state === "sent")
      await em.query(`UPDATE outbox_email SET state = 'sent', sent_at = ?, last_error = NULL WHERE id = ?`, [
        sqlDate(em, result.next.at),
        result.id,
      ]);
    else if (result.next.state === "failed")
      await em.query(`UPDATE outbox_email SET state = 'failed', last_error = ? WHERE id = ?`, [error, result.id]);
    else
      await em.query(`UPDATE outbox_email SET next_attempt_at = ?, last_error = ? WHERE id = ?`, [
        sqlDate(em, result.next.retryAt),
        error,
        result.id,
      ]);
  }
}

/** Work the delivery worker has not finished: what a backlog alert watches. */
export interface DeliveryBacklog {
  /** Events committed but not yet fanned out to endpoints. */
  undispatchedEvents: number;
  /** Webhook deliveries waiting for their first attempt or a retry. */
  pendingDeliveries: number;
  /** Trigger emails waiting to be sent or retried. */
  queuedEmails: number;
}

export async function readDeliveryBacklog(em: EntityManager): Promise<DeliveryBacklog> {
  const [row] = await selectRows(
    em,
    { events: "int", deliveries: "int", emails: "int" },
    `SELECT (SELECT COUNT(*) FROM event WHERE dispatched_at IS NULL) AS events,
            (SELECT COUNT(*) FROM webhook_delivery WHERE state = 'pending') AS deliveries,
            (SELECT COUNT(*) FROM outbox_email WHERE state = 'queued') AS emails`,
  );
  return { undispatchedEvents: row.events, pendingDeliveries: row.deliveries, queuedEmails: row.emails };
}

/**
 * Whether the worker has anything to do now: an event not fanned out, a delivery or an email due.
 * One statement, without a transaction or a lock: what an idle worker asks instead of claiming.
 */
export async function deliveryWorkIsDue(em: EntityManager, now: Date): Promise<boolean> {
  const at = sqlDate(em, now);
  const [row] = await selectRows(
    em,
    { due: "int" },
    `SELECT CASE WHEN EXISTS (SELECT 1 FROM event WHERE dispatched_at IS NULL)
              OR EXISTS (SELECT 1 FROM webhook_delivery WHERE state = 'pending' AND next_attempt_at <= ?)
              OR EXISTS (SELECT 1 FROM outbox_email WHERE state = 'queued' AND (next_attempt_at IS NULL OR next_attempt_at <= ?))
            THEN 1 ELSE 0 END AS due`,
    [at, at],
  );
  return row.due === 1;
}
