import { spawn } from "node:child_process";
import type { DataSource } from "typeorm";
import { createRequestContext, DEFAULT_DOMAIN_SETTINGS } from "../../src/domain/context";
import { processStateOf } from "../../src/domain/process-state";
import { recordEvents } from "../../src/domain/events/record-event";
import { inTransaction } from "../../src/domain/transaction";
import { createWebhookEndpoint } from "../../src/domain/webhooks/webhooks.service";
import { itOnMysqlFamily } from "../support/database";
import { MAPLE_PRINCIPAL } from "../support/domain-database";
import { openProcessDatabase, type ProcessDatabase } from "../support/process-database";
import { builtService } from "../support/service-build";
import { MAPLE } from "../fixtures/test-fixture";
import { startReceiver } from "./support/receiver";
import { until } from "./support/worker-setup";
import { writeFigures } from "../support/figures";

// A real `regapi worker` process killed with SIGKILL after it claimed a delivery and sent it, before
// it could record the answer: a restarted worker delivers the event again once the claim's lease
// is over (at least once, same event id).

jest.setTimeout(90_000);

let database: ProcessDatabase;
let dataSource: DataSource;
let databaseUrl: string;

beforeAll(async () => {
  database = await openProcessDatabase("crash");
  ({ dataSource, databaseUrl } = database);
});
afterAll(async () => {
  await database?.remove();
});

function spawnWorker(logLevel = "warn", deliveryTimeoutMs = 1000) {
  const cliMain = builtService().cliJs;
  const child = spawn(process.execPath, [cliMain, "worker"], {
    env: {
      PATH: process.env.PATH ?? "",
      DATABASE_URL: databaseUrl,
      DELIVERY_POLL_MS: "50",
      DELIVERY_TIMEOUT_MS: String(deliveryTimeoutMs),
      WEBHOOK_ALLOW_PRIVATE: "true",
      LOG_FORMAT: "json",
      LOG_LEVEL: logLevel,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  let stdout = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, stderr: () => stderr, stdout: () => stdout };
}

it("kill -9 between claim and recording, then a restart: the event is delivered again with the same id", async () => {
  const receiver = await startReceiver((_delivery, index) => (index === 0 ? "hang" : 200));
  try {
    const ctx = createRequestContext(processStateOf(dataSource), "test", MAPLE_PRINCIPAL, {
      settings: { ...DEFAULT_DOMAIN_SETTINGS, webhookAllowPrivate: true },
    });
    await createWebhookEndpoint(ctx, { url: receiver.url(), events: ["user.updated"] });
    await inTransaction(ctx, "test.record_events", async ({ em }) =>
      recordEvents(em, [{ type: "user.updated", groupId: MAPLE.groupId, data: { clogin_id: MAPLE.miles } }]),
    );

    // The first worker's request must still be in flight when it is killed: a 1 s delivery timeout
    // ran out first on a heavily loaded machine, and the worker recorded a timed-out attempt. Its
    // claim's lease (twice the timeout and a second) is what the restarted worker waits out.
    const first = spawnWorker("warn", 8000);
    await receiver.waitFor(1, 30_000);
    first.child.kill("SIGKILL");
    expect((await first.exited).signal).toBe("SIGKILL");
    const [claimed] = await dataSource.query(`SELECT state, attempt_count FROM webhook_delivery`);
    expect(claimed.state).toBe("pending");
    expect(Number(claimed.attempt_count)).toBe(1);
    expect(await dataSource.query(`SELECT id FROM webhook_attempt`)).toEqual([]);

    const second = spawnWorker();
    try {
      await receiver.waitFor(2, 30_000);
      expect(receiver.received[1].headers["regapi-event-id"]).toBe(receiver.received[0].headers["regapi-event-id"]);
      await until(
        async () => (await dataSource.query(`SELECT state FROM webhook_delivery`))[0].state === "delivered",
        10_000,
        "delivered state",
      );
    } finally {
      second.child.kill("SIGTERM");
      const { code } = await second.exited;
      expect({ code, stderr: second.stderr() }).toEqual({ code: 0, stderr: "" });
    }
  } finally {
    await receiver.close();
  }
});

itOnMysqlFamily("two regapi worker processes deliver 1,000 events exactly once between them", async () => {
  const receiver = await startReceiver(() => 200);
  try {
    const ctx = createRequestContext(processStateOf(dataSource), "test", MAPLE_PRINCIPAL, {
      settings: { ...DEFAULT_DOMAIN_SETTINGS, webhookAllowPrivate: true },
    });
    await dataSource.query(`DELETE FROM webhook_endpoint`);
    await createWebhookEndpoint(ctx, { url: receiver.url("/two"), events: ["user.created"] });
    const events = Array.from({ length: 1000 }, (_, n) => ({
      type: "user.created" as const,
      groupId: MAPLE.groupId,
      data: { clogin_id: MAPLE.miles, n },
    }));
    await inTransaction(ctx, "test.record_events", async ({ em }) => recordEvents(em, events));
    const workers = [spawnWorker("info"), spawnWorker("info")];
    try {
      await receiver.waitFor(1000, 30_000);
    } finally {
      for (const worker of workers) worker.child.kill("SIGTERM");
    }
    const exits = await Promise.all(workers.map((worker) => worker.exited));
    expect(exits.map((exit) => exit.code)).toEqual([0, 0]);
    const ids = receiver.received.map((delivery) => String(delivery.headers["regapi-event-id"]));
    expect(ids).toHaveLength(1000);
    expect(new Set(ids).size).toBe(1000);
    // Each process logs what it delivered when it stops.
    const shares = workers.map((worker) => {
      const stopped = worker
        .stdout()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { msg?: string; delivered?: number })
        .find((line) => line.msg === "delivery worker stopped");
      return stopped?.delivered ?? -1;
    });
    expect(shares[0] + shares[1]).toBe(1000);
    expect(Math.min(...shares)).toBeGreaterThan(0);
    writeFigures("two-worker-processes", { events: 1000, split: shares });
  } finally {
    await receiver.close();
  }
});
