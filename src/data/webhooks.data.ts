import type { EntityManager } from "typeorm";
import { WebhookEndpoint } from "../entities";
import { sqlDate } from "./events.data";
import { selectRows, sqlPlaceholders } from "./sql-rows";

/** A webhook endpoint as the management API shows it (never with its secret). */
export interface WebhookEndpointRecord {
  id: number;
  organizationId: number;
  url: string;
  events: string[];
  /** null: every project of the organization. */
  groupIds: number[] | null;
  active: boolean;
  disabledReason: string | null;
  createdAt: Date;
}

const ENDPOINT_SHAPE = {
  id: "int",
  organization_id: "int",
  url: "text",
  event_types: "text",
  group_ids: "textOrNull",
  active: "flag",
  disabled_reason: "textOrNull",
  created_at: "date",
} as const;

const ENDPOINT_COLUMNS = "id, organization_id, url, event_types, group_ids, active, disabled_reason, created_at";

const splitIds = (text: string | null) => (text === null ? null : text.split(",").filter(Boolean).map(Number));
const endpointOf = (row: {
  id: number;
  organization_id: number;
  url: string;
  event_types: string;
  group_ids: string | null;
  active: boolean;
  disabled_reason: string | null;
  created_at: Date;
}): WebhookEndpointRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  url: row.url,
  events: row.event_types.split(",").filter(Boolean),
  groupIds: splitIds(row.group_ids),
  active: row.active,
  disabledReason: row.disabled_reason,
  createdAt: row.created_at,
});

export async function insertWebhookEndpoint(
  em: EntityManager,
  endpoint: { organizationId: number; url: string; secret: string; events: string[]; groupIds: number[] | null },
  now: Date,
): Promise<number> {
  const inserted = await em.insert(WebhookEndpoint, {
    organizationId: endpoint.organizationId,
    url: endpoint.url,
    secret: endpoint.secret,
    eventTypes: endpoint.events.join(","),
    groupIds: endpoint.groupIds === null ? null : endpoint.groupIds.join(","),
    active: true,
    disabledReason: null,
    createdAt: now,
  });
  return Number(inserted.identifiers[0].id);
}

export async function updateWebhookEndpointRow(
  em: EntityManager,
  id: number,
  changes: { url?: string; events?: string[]; groupIds?: number[] | null; active?: boolean },
): Promise<void> {
  const set: Partial<WebhookEndpoint> = {};
  if (changes.url !== undefined) set.url = changes.url;
  if (changes.events !== undefined) set.eventTypes = changes.events.join(",");
  if (changes.groupIds !== undefined) set.groupIds = changes.groupIds === null ? null : changes.groupIds.join(",");
  if (changes.active !== undefined) {
    set.active = changes.active;
    if (changes.active) set.disabledReason = null;
  }
  if (Object.keys(set).length > 0) await em.update(WebhookEndpoint, { id }, set);
}

export async function deleteWebhookEndpointRow(em: EntityManager, id: number): Promise<void> {
  await em.delete(WebhookEndpoint, { id });
}

/** The organization's endpoints, by id; `id` narrows to one. */
export async function readWebhookEndpoints(
  em: EntityManager,
  organizationId: number,
  id?: number,
): Promise<WebhookEndpointRecord[]> {
  const rows = await selectRows(
    em,
    ENDPOINT_SHAPE,
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoint WHERE organization_id = ?${id === undefined ? "" : " AND id = ?"} ORDER BY id`,
    id === undefined ? [organizationId] : [organizationId, id],
  );
  return rows.map(endpointOf);
}

/** The active endpoints of these organizations (fan-out of events). */
export async function readActiveEndpoints(
  em: EntityManager,
  organizationIds: readonly number[],
): Promise<WebhookEndpointRecord[]> {
  if (organizationIds.length === 0) return [];
  const rows = await selectRows(
    em,
    ENDPOINT_SHAPE,
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoint
      WHERE active = 1 AND organization_id IN (${sqlPlaceholders(organizationIds.length)})`,
    organizationIds,
  );
  return rows.map(endpointOf);
}

/** One delivery of an event to an endpoint, with every attempt. */
export interface WebhookDeliveryRecord {
  id: number;
  endpointId: number;
  eventId: string;
  eventType: string;
  state: "pending" | "delivered" | "failed";
  attemptCount: number;
  nextAttemptAt: Date;
  createdAt: Date;
  deliveredAt: Date | null;
  attempts: { attemptedAt: Date; statusCode: number | null; durationMs: number; error: string | null }[];
}

/** A page of an endpoint's deliveries, newest first, after the delivery id `afterId`. */
export async function readWebhookDeliveries(
  em: EntityManager,
  endpointId: number,
  limit: number,
  afterId: number | null,
  /** Backward: the `limit` oldest deliveries newer than `beforeId` (or the oldest of all), still newest first. */
  backward: { beforeId: number | null } | null = null,
): Promise<WebhookDeliveryRecord[]> {
  if (backward) {
    const bounds = [
      ...(backward.beforeId !== null ? [["d.id > ?", backward.beforeId] as const] : []),
      ...(afterId !== null ? [["d.id < ?", afterId] as const] : []),
    ];
    const rows = await selectDeliveries(
      em,
      `d.endpoint_id = ?${bounds.map(([sql]) => ` AND ${sql}`).join("")} ORDER BY d.id ASC LIMIT ?`,
      [endpointId, ...bounds.map(([, value]) => value), limit],
    );
    return rows.reverse();
  }
  return selectDeliveries(
    em,
    `d.endpoint_id = ?${afterId === null ? "" : " AND d.id < ?"} ORDER BY d.id DESC LIMIT ?`,
    afterId === null ? [endpointId, limit] : [endpointId, afterId, limit],
  );
}

/** How many deliveries the endpoint's log holds. */
export async function countWebhookDeliveries(em: EntityManager, endpointId: number): Promise<number> {
  const [row] = await selectRows(em, { n: "int" }, `SELECT COUNT(*) AS n FROM webhook_delivery WHERE endpoint_id = ?`, [
    endpointId,
  ]);
  return row?.n ?? 0;
}

/** One delivery of the endpoint (node refetch); null when the endpoint has no such delivery. */
export async function readWebhookDelivery(
  em: EntityManager,
  endpointId: number,
  deliveryId: number,
): Promise<WebhookDeliveryRecord | null> {
  const [delivery] = await selectDeliveries(em, `d.endpoint_id = ? AND d.id = ?`, [endpointId, deliveryId]);
  return delivery ?? null;
}

/** Deliveries matching `condition` (over `d`, the delivery), then their attempts in one more statement. */
async function selectDeliveries(
  em: EntityManager,
  condition: string,
  parameters: unknown[],
): Promise<WebhookDeliveryRecord[]> {
  const rows = await selectRows(
    em,
    {
      id: "int",
      endpoint_id: "int",
      public_id: "text",
      type: "text",
      state: "text",
      attempt_count: "int",
      next_attempt_at: "date",
      created_at: "date",
      delivered_at: "dateOrNull",
    },
    `SELECT d.id, d.endpoint_id, e.public_id, e.type, d.state, d.attempt_count, d.next_attempt_at, d.created_at, d.delivered_at
       FROM webhook_delivery d JOIN event e ON e.id = d.event_id
      WHERE ${condition}`,
    parameters,
  );
  const attempts = rows.length
    ? await selectRows(
        em,
        { delivery_id: "int", attempted_at: "date", status_code: "intOrNull", duration_ms: "int", error: "textOrNull" },
        `SELECT delivery_id, attempted_at, status_code, duration_ms, error FROM webhook_attempt
          WHERE delivery_id IN (${sqlPlaceholders(rows.length)}) ORDER BY id`,
        rows.map((row) => row.id),
      )
    : [];
  return rows.map((row) => ({
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.public_id,
    eventType: row.type,
    state: row.state as WebhookDeliveryRecord["state"],
    attemptCount: row.attempt_count,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
    attempts: attempts
      .filter((attempt) => attempt.delivery_id === row.id)
      .map((attempt) => ({
        attemptedAt: attempt.attempted_at,
        statusCode: attempt.status_code,
        durationMs: attempt.duration_ms,
        error: attempt.error,
      })),
  }));
}

/**
 * Queues an event of the organization again for each of its deliveries (a new try now, a fresh
 * retry window). Returns the number of deliveries re-queued; 0 when the event is not the
 * organization's or was never fanned out.
 */
export async function requeueEventDeliveries(
  em: EntityManager,
  organizationId: number,
  publicEventId: string,
  now: Date,
): Promise<{ found: boolean; requeued: number }> {
  const events = await selectRows(
    em,
    { id: "int" },
    `SELECT id FROM event WHERE public_id = ? AND organization_id = ?`,
    [publicEventId, organizationId],
  );
  if (events.length === 0) return { found: false, requeued: 0 };
  const deliveries = await selectRows(em, { id: "int" }, `SELECT id FROM webhook_delivery WHERE event_id = ?`, [
    events[0].id,
  ]);
  if (deliveries.length > 0) {
    await em.query(
      `UPDATE webhook_delivery SET state = 'pending', next_attempt_at = ?, created_at = ?, delivered_at = NULL
        WHERE event_id = ?`,
      [sqlDate(em, now), sqlDate(em, now), events[0].id],
    );
  }
  return { found: true, requeued: deliveries.length };
}
