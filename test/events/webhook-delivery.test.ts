import { createHmac } from "node:crypto";
import { startDeliveryWorker, type DeliveryWorker } from "../../src/delivery/delivery-worker";
import { nextRetryAt } from "../../src/delivery/retry-schedule";
import { openDomainDatabase, type DomainDatabase } from "../support/domain-database";
import { MAPLE } from "../fixtures/test-fixture";
import { startReceiver } from "./support/receiver";
import {
  addEndpoint,
  attemptRows,
  deliveryRows,
  FAST_DELIVERY,
  recordTestEvents,
  silentLogger,
  until,
} from "./support/worker-setup";

// The delivery worker against a real HTTP receiver on loopback (contract §16).

let db: DomainDatabase;
let worker: DeliveryWorker | null = null;
beforeEach(async () => {
  db = await openDomainDatabase();
});
afterEach(async () => {
  await worker?.stop();
  worker = null;
  await db.dispose();
});
const start = (config = FAST_DELIVERY) => {
  worker = startDeliveryWorker({ state: db.state, logger: silentLogger, config });
  return worker;
};

describe("webhook delivery", () => {
  it("POSTs {id, type, created_at, group_id, data} signed with the endpoint's secret: t=…,v1=HMAC-SHA256(secret, t.body)", async () => {
    const receiver = await startReceiver();
    try {
      const { secret } = await addEndpoint(db, receiver.url());
      await recordTestEvents(db, 1);
      const [event] = await db.dataSource.query(`SELECT public_id FROM event`);
      start();
      await receiver.waitFor(1);
      const [delivery] = receiver.received;
      const body = JSON.parse(delivery.body);
      expect(body).toMatchObject({
        id: event.public_id,
        type: "user.updated",
        group_id: MAPLE.groupId,
        data: { clogin_id: MAPLE.miles, n: 0 },
      });
      expect(new Date(body.created_at).toISOString()).toBe(body.created_at);
      expect(delivery.headers["regapi-event-id"]).toBe(event.public_id);
      expect(delivery.headers["content-type"]).toBe("application/json");
      const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(delivery.headers["regapi-signature"]));
      expect(match).not.toBeNull();
      const expected = createHmac("sha256", secret).update(`${match![1]}.${delivery.body}`).digest("hex");
      expect(match![2]).toBe(expected);
      expect(Math.abs(Number(match![1]) - Date.now() / 1000)).toBeLessThan(30);
      await until(async () => (await deliveryRows(db))[0]?.state === "delivered", 5000, "delivered state");
      const attempts = await attemptRows(db);
      expect(attempts).toHaveLength(1);
      expect(attempts[0]).toMatchObject({ statusCode: 200, error: null });
    } finally {
      await receiver.close();
    }
  });

  it("a 500 is retried (same event id) and the second attempt delivers; both attempts are logged", async () => {
    const receiver = await startReceiver((_delivery, index) => (index === 0 ? 500 : 204));
    try {
      await addEndpoint(db, receiver.url());
      await recordTestEvents(db, 1);
      start();
      await receiver.waitFor(2);
      expect(receiver.received[1].headers["regapi-event-id"]).toBe(receiver.received[0].headers["regapi-event-id"]);
      await until(async () => (await deliveryRows(db))[0]?.state === "delivered", 5000, "delivered state");
      expect((await deliveryRows(db))[0].attempts).toBe(2);
      expect((await attemptRows(db)).map((attempt) => [attempt.statusCode, attempt.error])).toEqual([
        [500, "HTTP 500"],
        [204, null],
      ]);
    } finally {
      await receiver.close();
    }
  });

  it("410 Gone disables the endpoint: no retry, its delivery failed, later events are not sent to it", async () => {
    const receiver = await startReceiver(() => 410);
    try {
      const { endpoint } = await addEndpoint(db, receiver.url());
      await recordTestEvents(db, 1);
      start();
      await receiver.waitFor(1);
      await until(async () => (await deliveryRows(db))[0]?.state === "failed", 5000, "failed state");
      const [row] = await db.dataSource.query(`SELECT active, disabled_reason FROM webhook_endpoint WHERE id = ?`, [
        endpoint.id,
      ]);
      expect(Number(row.active)).toBe(0);
      expect(row.disabled_reason).toMatch(/410/);
      await recordTestEvents(db, 1);
      await until(
        async () =>
          Number((await db.dataSource.query(`SELECT COUNT(*) AS n FROM event WHERE dispatched_at IS NULL`))[0].n) === 0,
        5000,
        "fan-out",
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(receiver.received).toHaveLength(1);
      expect(await deliveryRows(db)).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it("a receiver that hangs past the timeout is cut off, logged as a timeout and retried", async () => {
    const receiver = await startReceiver((_delivery, index) => (index === 0 ? "hang" : 200));
    try {
      await addEndpoint(db, receiver.url());
      await recordTestEvents(db, 1);
      start();
      await receiver.waitFor(2, 10_000);
      await until(async () => (await deliveryRows(db))[0]?.state === "delivered", 5000, "delivered state");
      const attempts = await attemptRows(db);
      expect(attempts[0]).toMatchObject({ statusCode: null, error: `timed out after ${FAST_DELIVERY.timeoutMs} ms` });
      expect(attempts[0].durationMs).toBeGreaterThanOrEqual(FAST_DELIVERY.timeoutMs - 5);
      expect(attempts[0].durationMs).toBeLessThan(FAST_DELIVERY.timeoutMs + 1000);
    } finally {
      await receiver.close();
    }
  });

  it("endpoints receive only their event types and projects; an event before any endpoint existed is not sent", async () => {
    const receiver = await startReceiver();
    try {
      await recordTestEvents(db, 1);
      start();
      await until(
        async () =>
          Number((await db.dataSource.query(`SELECT COUNT(*) AS n FROM event WHERE dispatched_at IS NULL`))[0].n) === 0,
        5000,
        "fan-out",
      );
      await addEndpoint(db, receiver.url(), ["user.created"]);
      await recordTestEvents(db, 1, "user.updated");
      await recordTestEvents(db, 1, "user.created");
      await receiver.waitFor(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(receiver.received.map((delivery) => JSON.parse(delivery.body).type)).toEqual(["user.created"]);
    } finally {
      await receiver.close();
    }
  });

  it("the address is checked again when connecting: a name resolving to loopback is refused at delivery time (DNS rebinding)", async () => {
    const receiver = await startReceiver();
    try {
      // Registered while private addresses were allowed; the worker now runs without that allowance.
      await addEndpoint(db, receiver.url().replace("127.0.0.1", "localhost"));
      await recordTestEvents(db, 1);
      start({ ...FAST_DELIVERY, webhookAllowPrivate: false, retryBaseMs: 60_000 });
      await until(async () => (await attemptRows(db)).length === 1, 5000, "a refused attempt");
      expect((await attemptRows(db))[0]).toMatchObject({
        statusCode: null,
        error: expect.stringMatching(
          /^refused: resolves to an internal address \((127\.0\.0\.1|::1)\); WEBHOOK_ALLOW_PRIVATE=true allows it$/,
        ),
      });
      expect(receiver.received).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it("SIGTERM drain: stop() waits for the delivery in flight (here until its timeout) and records its attempt", async () => {
    const receiver = await startReceiver(() => "hang");
    try {
      await addEndpoint(db, receiver.url());
      await recordTestEvents(db, 1);
      start({ ...FAST_DELIVERY, timeoutMs: 1000 });
      await receiver.waitFor(1);
      const stopping = worker!.stop();
      worker = null;
      const early = await Promise.race([
        stopping.then(() => "stopped"),
        new Promise((resolve) => setTimeout(() => resolve("still draining"), 300)),
      ]);
      expect(early).toBe("still draining");
      await stopping;
      expect(await attemptRows(db)).toEqual([
        expect.objectContaining({ statusCode: null, error: "timed out after 1000 ms" }),
      ]);
      expect((await deliveryRows(db))[0]).toMatchObject({ state: "pending", attempts: 1 });
    } finally {
      await receiver.close();
    }
  });
});

describe("retry schedule", () => {
  const settings = { retryBaseMs: 30_000, retryWindowSeconds: 24 * 3600 };
  it("the first retry comes within 60 s; delays double with ±25 % jitter up to an hour; retries stop after about 24 hours", () => {
    const queued = new Date("2026-01-01T00:00:00Z");
    for (const random of [0, 0.5, 0.999]) {
      const first = nextRetryAt(1, queued, queued, settings, () => random)!;
      expect(first.getTime() - queued.getTime()).toBeGreaterThanOrEqual(22_500);
      expect(first.getTime() - queued.getTime()).toBeLessThanOrEqual(37_500);
    }
    const fourth = nextRetryAt(4, queued, queued, settings, () => 0.5)!;
    expect(fourth.getTime() - queued.getTime()).toBe(240_000);
    const late = nextRetryAt(20, queued, queued, settings, () => 0.5)!;
    expect(late.getTime() - queued.getTime()).toBe(3600_000);
    let now = queued;
    let attempts = 0;
    for (;;) {
      attempts += 1;
      const next = nextRetryAt(attempts, queued, now, settings, () => 0.5);
      if (!next) break;
      now = next;
    }
    expect((now.getTime() - queued.getTime()) / 3600_000).toBeGreaterThan(23);
    expect(attempts).toBeGreaterThan(20);
    expect(attempts).toBeLessThan(40);
  });
});

describe("an endpoint deleted while a delivery is in flight", () => {
  let local: DomainDatabase;
  beforeAll(async () => {
    local = await openDomainDatabase();
  });
  afterAll(() => local.dispose());

  it("its deliveries go with it; the worker records the others and carries on", async () => {
    const { deleteWebhookEndpoint } = await import("../../src/domain/webhooks/webhooks.service");
    const { mapleContext } = await import("./support/worker-setup");
    const doomed = await startReceiver(() => "hang");
    const kept = await startReceiver(() => 200);
    const running = startDeliveryWorker({
      state: local.state,
      logger: silentLogger,
      config: { ...FAST_DELIVERY, timeoutMs: 800 },
    });
    try {
      const { endpoint } = await addEndpoint(local, doomed.url());
      await addEndpoint(local, kept.url());
      await recordTestEvents(local, 1);
      await doomed.waitFor(1);
      await kept.waitFor(1);
      await deleteWebhookEndpoint(mapleContext(local), endpoint.id);
      await until(async () => (await attemptRows(local)).length === 1, 5000, "the kept endpoint's attempt");
      expect((await deliveryRows(local)).map((row) => row.state)).toEqual(["delivered"]);
      await recordTestEvents(local, 1);
      await kept.waitFor(2);
    } finally {
      await running.stop();
      await doomed.close();
      await kept.close();
    }
  });
});
