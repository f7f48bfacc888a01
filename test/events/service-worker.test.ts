import { createHmac } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DataSource } from "typeorm";
import { openProcessDatabase, type ProcessDatabase } from "../support/process-database";
import { startService, type ServiceProcess } from "../foundation/support/service-process";
import { MAPLE, mapleHeaders } from "../fixtures/test-fixture";
import { startReceiver } from "./support/receiver";
import { until } from "./support/worker-setup";
import { builtService } from "../support/service-build";

// The service process runs the delivery worker by default: a REST write is delivered, signed, to an
// endpoint registered through GraphQL; on SIGTERM the service waits for the delivery in flight and
// records it before it exits 0.

jest.setTimeout(90_000);

let database: ProcessDatabase;
let dataSource: DataSource;
let databaseUrl: string;
let service: ServiceProcess | null = null;

beforeAll(async () => {
  database = await openProcessDatabase("svc");
  ({ dataSource, databaseUrl } = database);
});
afterAll(async () => {
  if (service && service.child.exitCode === null) service.child.kill("SIGKILL");
  await database?.remove();
});

interface GraphqlOrRestBody {
  errors?: unknown;
  data: { createWebhookEndpoint: { secret: string } };
}

async function post(port: number, path: string, body: unknown) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...mapleHeaders },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as GraphqlOrRestBody };
}

it("delivers a REST write to a GraphQL-registered endpoint from the service process, and drains it on SIGTERM", async () => {
  const receiver = await startReceiver(() => 200);
  try {
    const started = await startService(builtService().mainJs, {
      DATABASE_URL: databaseUrl,
      DEMO: "false",
      DELIVERY_POLL_MS: "50",
      DELIVERY_TIMEOUT_MS: "1500",
      WEBHOOK_ALLOW_PRIVATE: "true",
      SHUTDOWN_ACCEPT_MS: "100",
      SHUTDOWN_IDLE_MS: "100",
      MAIL_DIR: join(tmpdir(), `regapi-svc-mail-${process.pid}`),
    });
    service = started;
    const created = await post(started.port, "/graphql", {
      query: `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } secret } }`,
      variables: { input: { url: receiver.url(), events: ["user.updated"] } },
    });
    expect(created.body.errors).toBeUndefined();
    const secret = created.body.data.createWebhookEndpoint.secret;

    const update = (name: string) =>
      post(started.port, "/reg/api2/users/", {
        action: "update",
        group_id: MAPLE.groupId,
        clogin_id: MAPLE.miles,
        doc: { first_name: name },
      });
    expect((await update("Service")).status).toBe(200);
    await receiver.waitFor(1, 10_000);
    const [first] = receiver.received;
    expect(JSON.parse(first.body)).toMatchObject({ type: "user.updated", group_id: MAPLE.groupId });
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]+)$/.exec(String(first.headers["regapi-signature"]))!;
    expect(createHmac("sha256", secret).update(`${t}.${first.body}`).digest("hex")).toBe(v1);

    // The next delivery hangs; SIGTERM arrives while it is in flight.
    receiver.setBehaviour(() => "hang");
    expect((await update("Draining")).status).toBe(200);
    await receiver.waitFor(2, 10_000);
    started.child.kill("SIGTERM");
    const { code } = await started.exited;
    expect(code).toBe(0);
    await until(
      async () => (await dataSource.query(`SELECT id FROM webhook_attempt`)).length === 2,
      5000,
      "2 attempts",
    );
    const attempts = await dataSource.query(`SELECT status_code, error FROM webhook_attempt ORDER BY id`);
    expect(
      attempts.map((row: { status_code: unknown; error: unknown }) => [
        row.status_code === null ? null : Number(row.status_code),
        row.error,
      ]),
    ).toEqual([
      [200, null],
      [null, "timed out after 1500 ms"],
    ]);
    expect(started.lines.some((line) => line.msg === "delivery worker stopped")).toBe(true);
  } finally {
    await receiver.close();
  }
});
