import { Writable } from "node:stream";
import request from "supertest";
import { createApp, type RegapiApp } from "../../src/app";
import type { TrustProxy } from "../../src/config/config";
import { createLogger } from "../../src/http/logger";
import { MAPLE } from "../fixtures/test-fixture";
import { openDomainDatabase, type DomainDatabase } from "../support/domain-database";
import { testConfig } from "../support/test-config";

// TRUST_PROXY: behind a load balancer the client's address comes from X-Forwarded-For, so the
// per-IP limit of unauthenticated requests and the access log see clients, not the balancer.

class LogCapture extends Writable {
  text = "";
  _write(chunk: Buffer, _encoding: string, done: () => void) {
    this.text += chunk.toString("utf8");
    done();
  }
  clientIps(): unknown[] {
    return this.text
      .split("\n")
      .filter((line) => line.includes('"msg":"request"'))
      .map((line) => (JSON.parse(line) as { clientIp?: unknown }).clientIp);
  }
}

let db: DomainDatabase;
const apps: RegapiApp[] = [];
beforeAll(async () => {
  db = await openDomainDatabase();
});
afterAll(async () => {
  for (const app of apps) await app.stop();
  await db.dispose();
});

async function appTrusting(trustProxy: TrustProxy | undefined, log: LogCapture) {
  const regapi = await createApp({
    dataSource: db.dataSource,
    logger: createLogger("info", log),
    config: testConfig({
      graphqlIntrospection: true,
      trustProxy,
      rateLimit: { perMinute: 1000, unauthenticatedPerMinute: 1 },
    }),
  });
  apps.push(regapi);
  return regapi.app;
}

/** An unauthenticated request (wrong token) as if relayed by a proxy for `client`. */
const fromClient = (app: Awaited<ReturnType<typeof appTrusting>>, client: string) =>
  request(app)
    .post("/reg/api2/projects/")
    .set({ "Api-Id": MAPLE.apiId, "Api-User": MAPLE.apiUser, "Api-Token": "wrong", "X-Forwarded-For": client })
    .send({ action: "get_project_list", group_id: MAPLE.groupId, doc: {} });

describe("TRUST_PROXY", () => {
  it("with one trusted proxy, each forwarded client has its own per-IP limit and is logged by its address", async () => {
    const log = new LogCapture();
    const app = await appTrusting(1, log);
    expect((await fromClient(app, "203.0.113.7")).status).toBe(401);
    expect((await fromClient(app, "203.0.113.7")).status).toBe(429);
    expect((await fromClient(app, "198.51.100.9")).status).toBe(401);
    expect(log.clientIps()).toEqual(["203.0.113.7", "203.0.113.7", "198.51.100.9"]);
  });

  it("by default X-Forwarded-For is ignored: every client behind the proxy shares its address", async () => {
    const log = new LogCapture();
    const app = await appTrusting(undefined, log);
    expect((await fromClient(app, "203.0.113.7")).status).toBe(401);
    expect((await fromClient(app, "198.51.100.9")).status).toBe(429);
    const ips = log.clientIps();
    expect(ips).toHaveLength(2);
    expect(ips).not.toContain("203.0.113.7");
    expect(ips[0]).toMatch(/127\.0\.0\.1|::1/);
  });

  it("a list of trusted proxy subnets trusts only those (loopback here)", async () => {
    const log = new LogCapture();
    const app = await appTrusting(["loopback"], log);
    expect((await fromClient(app, "192.0.2.1")).status).toBe(401);
    expect((await fromClient(app, "192.0.2.2")).status).toBe(401);
    expect(log.clientIps()).toEqual(["192.0.2.1", "192.0.2.2"]);
  });
});
