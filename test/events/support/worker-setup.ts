import { DEFAULT_DELIVERY, type DeliveryConfig } from "../../../src/config/config";
import { createRequestContext, DEFAULT_DOMAIN_SETTINGS } from "../../../src/domain/context";
import { recordEvents, type DomainEvent } from "../../../src/domain/events/record-event";
import { inTransaction } from "../../../src/domain/transaction";
import { createWebhookEndpoint } from "../../../src/domain/webhooks/webhooks.service";
import { createLogger } from "../../../src/http/logger";
import type { DomainDatabase } from "../../support/domain-database";
import { MAPLE_PRINCIPAL } from "../../support/domain-database";
import { MAPLE } from "../../fixtures/test-fixture";

/** Fast settings for tests: short poll, timeout and first retry; loopback receivers allowed. */
export const FAST_DELIVERY: DeliveryConfig = {
  ...DEFAULT_DELIVERY,
  pollIntervalMs: 20,
  timeoutMs: 400,
  retryBaseMs: 50,
  webhookAllowPrivate: true,
};

export const silentLogger = createLogger("silent");

/** The Maple organization's API context, loopback webhook URLs allowed. */
export const mapleContext = (db: DomainDatabase, allowPrivate = true) =>
  createRequestContext(db.state, "test", MAPLE_PRINCIPAL, {
    settings: { ...DEFAULT_DOMAIN_SETTINGS, webhookAllowPrivate: allowPrivate },
  });

export const addEndpoint = (db: DomainDatabase, url: string, events: string[] = ["user.updated"]) =>
  createWebhookEndpoint(mapleContext(db), { url, events });

/** Records `count` user.updated events of the Maple project in one transaction. */
export async function recordTestEvents(db: DomainDatabase, count: number, type: DomainEvent["type"] = "user.updated") {
  const events: DomainEvent[] = Array.from({ length: count }, (_, i) => ({
    type,
    groupId: MAPLE.groupId,
    data: { clogin_id: MAPLE.miles, n: i },
  }));
  await inTransaction(mapleContext(db), "test.record_events", async ({ em }) => recordEvents(em, events));
}

export async function deliveryRows(db: DomainDatabase) {
  const rows: Record<string, unknown>[] = await db.dataSource.query(
    `SELECT id, state, attempt_count, endpoint_id FROM webhook_delivery ORDER BY id`,
  );
  return rows.map((row) => ({
    id: Number(row.id),
    state: String(row.state),
    attempts: Number(row.attempt_count),
    endpointId: Number(row.endpoint_id),
  }));
}

export async function attemptRows(db: DomainDatabase) {
  const rows: Record<string, unknown>[] = await db.dataSource.query(
    `SELECT delivery_id, status_code, duration_ms, error FROM webhook_attempt ORDER BY id`,
  );
  return rows.map((row) => ({
    deliveryId: Number(row.delivery_id),
    statusCode: row.status_code === null ? null : Number(row.status_code),
    durationMs: Number(row.duration_ms),
    error: row.error === null ? null : String(row.error),
  }));
}

export async function until(check: () => Promise<boolean>, timeoutMs = 15_000, what = "condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
