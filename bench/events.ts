import "reflect-metadata";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataSource, type QueryRunner } from "typeorm";
import { DEFAULT_DELIVERY, parseDatabaseUrl, redactUrl } from "../src/config/config";
import { buildDataSourceOptions } from "../src/db/data-source-options";
import { CountingSqlLogger } from "../src/db/sql-counter";
import { startDeliveryWorker } from "../src/delivery/delivery-worker";
import { createRequestContext, DEFAULT_DOMAIN_SETTINGS } from "../src/domain/context";
import { processStateOf } from "../src/domain/process-state";
import { recordEvents, type DomainEvent } from "../src/domain/events/record-event";
import { inTransaction } from "../src/domain/transaction";
import { updateUser } from "../src/domain/users/users.service";
import { createWebhookEndpoint } from "../src/domain/webhooks/webhooks.service";
import { DEMO_FIXTURE } from "../src/fixtures/demo";
import { loadFixture } from "../src/fixtures/load-fixture";
import { createLogger } from "../src/http/logger";

// Events benchmark: events recorded and delivered per second to a local receiver, and what
// recording costs an `update` (statements, p50), without and with a webhook endpoint.
//   npm run build && node dist/bench/events.js                       # SQLite temp file
//   BENCH_DATABASE_URL=mariadb://root@127.0.0.1:3306/regapi_bench_events node dist/bench/events.js
// On MySQL/MariaDB the named database must exist and be empty; it is migrated here.

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const UPDATES = Number(process.env.BENCH_UPDATES ?? 300);
const GROUP_ID = 100909072;
const MILES = 102670540;
const PRINCIPAL = { apiAccountId: 15263, apiUser: "api_admin@maple.test", organizationId: 1 };

/** Counts every statement, and separately the INSERTs into the event table. */
class EventCountingLogger extends CountingSqlLogger {
  eventInserts = 0;
  override logQuery(query: string, parameters?: unknown[], queryRunner?: QueryRunner): void {
    super.logQuery(query, parameters, queryRunner);
    if (/^\s*INSERT INTO event\b/i.test(query)) this.eventInserts += 1;
  }
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) * p)];

async function main(): Promise<void> {
  const url = process.env.BENCH_DATABASE_URL;
  const folder = url ? null : mkdtempSync(join(tmpdir(), "regapi-bench-events-"));
  const config = parseDatabaseUrl(url ?? `sqlite:${join(folder!, "bench.sqlite")}`);
  const sql = new EventCountingLogger();
  const dataSource = new DataSource(buildDataSourceOptions(config, { logger: sql }));
  await dataSource.initialize();
  if (config.kind !== "sqlite") await dataSource.runMigrations({ transaction: "each" });
  await loadFixture(createRequestContext(processStateOf(dataSource), "bench"), DEMO_FIXTURE);
  const state = processStateOf(dataSource);
  const ctx = createRequestContext(state, "bench", PRINCIPAL, {
    settings: { ...DEFAULT_DOMAIN_SETTINGS, webhookAllowPrivate: true },
  });
  console.log(`events benchmark on ${url ? redactUrl(url) : "SQLite (temp file)"}`);

  const receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  async function measureUpdates(label: string): Promise<void> {
    const durations: number[] = [];
    const statements: number[] = [];
    const eventInserts: number[] = [];
    for (let i = 0; i < UPDATES; i += 1) {
      const before = sql.total;
      const eventsBefore = sql.eventInserts;
      const started = performance.now();
      await updateUser(ctx, { groupId: GROUP_ID, cloginId: MILES, values: { first_name: `Miles ${label} ${i}` } });
      durations.push(performance.now() - started);
      statements.push(sql.total - before);
      eventInserts.push(sql.eventInserts - eventsBefore);
    }
    console.log(
      `update that changes a value (${label}): ${percentile(statements, 0.5)} statements, of which ${percentile(eventInserts, 0.5)} record events; p50 ${percentile(durations, 0.5).toFixed(2)} ms, p95 ${percentile(durations, 0.95).toFixed(2)} ms (${UPDATES} calls)`,
    );
  }
  await measureUpdates("no endpoint");
  await createWebhookEndpoint(ctx, { url: receiverUrl, events: ["user.updated", "form.submitted", "form.completed"] });
  await measureUpdates("one endpoint");

  // Throughput: events recorded (100 per transaction), then delivered by one worker to the receiver.
  const recordStarted = performance.now();
  for (let done = 0; done < EVENTS; done += 100) {
    const batch: DomainEvent[] = Array.from({ length: Math.min(100, EVENTS - done) }, (_, i) => ({
      type: "user.updated",
      groupId: GROUP_ID,
      data: { clogin_id: MILES, n: done + i },
    }));
    await inTransaction(ctx, "bench.record_events", async ({ em }) => recordEvents(em, batch));
  }
  const recordSeconds = (performance.now() - recordStarted) / 1000;
  console.log(
    `recorded ${EVENTS} events in ${recordSeconds.toFixed(2)} s: ${(EVENTS / recordSeconds).toFixed(0)} events/s`,
  );

  const pendingCount = async () =>
    Number(
      (
        await dataSource.query(
          `SELECT (SELECT COUNT(*) FROM event WHERE dispatched_at IS NULL) + (SELECT COUNT(*) FROM webhook_delivery WHERE state = 'pending') AS n`,
        )
      )[0].n,
    );
  const deliverStarted = performance.now();
  const worker = startDeliveryWorker({
    state,
    logger: createLogger("silent"),
    config: {
      ...DEFAULT_DELIVERY,
      pollIntervalMs: 20,
      webhookAllowPrivate: true,
      mailDir: join(tmpdir(), "regapi-bench-mail"),
    },
  });
  while ((await pendingCount()) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  const deliverSeconds = (performance.now() - deliverStarted) / 1000;
  await worker.stop();
  const delivered = worker.stats.delivered;
  console.log(
    `delivered ${delivered} deliveries (the recorded events plus those of the updates) in ${deliverSeconds.toFixed(2)} s with one worker: ${(delivered / deliverSeconds).toFixed(0)} deliveries/s`,
  );

  receiver.close();
  await dataSource.destroy();
  if (folder) rmSync(folder, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
