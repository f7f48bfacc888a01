import { Writable } from "node:stream";
import request from "supertest";
import { createApp, type RegapiApp } from "../../src/app";
import { inTransaction } from "../../src/domain/transaction";
import { createLogger, resolveLogFormat } from "../../src/http/logger";
import { MAPLE } from "../fixtures/test-fixture";
import { itOnMysqlFamily, onMysqlFamily } from "../support/database";
import { deadlockTwoUnits } from "../support/conflicts";
import { uidOf } from "../support/rows";
import { startTestApp, type TestApp } from "../support/test-app";
import { testConfig } from "../support/test-config";

class LogCapture extends Writable {
  text = "";
  _write(chunk: Buffer, _encoding: string, done: () => void) {
    this.text += chunk.toString("utf8");
    done();
  }
  lines(): Record<string, unknown>[] {
    return this.text
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}

const maple = { "Api-Id": MAPLE.apiId, "Api-User": MAPLE.apiUser, "Api-Token": MAPLE.apiToken };

let t: TestApp;
let regapi: RegapiApp;
const capture = new LogCapture();
beforeAll(async () => {
  t = await startTestApp({ config: { accountCacheTtlMs: 0 } });
  regapi = await createApp({
    dataSource: t.dataSource,
    // Reruns of the test's own units of work (t.context()) are counted where this app's scrape sees them.
    shareWith: t.state,
    logger: createLogger("debug", capture),
    config: testConfig({
      graphqlIntrospection: true,
      // Every request reads its account, so each REST request below issues at least one statement.
      accountCacheTtlMs: 0,
      rateLimit: { perMinute: 100, unauthenticatedPerMinute: 2 },
    }),
  });
});
afterAll(async () => {
  await regapi.stop();
  await t.close();
});

/** The value of one sample line of a Prometheus text exposition, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = (match[2] ?? "").split(",").filter(Boolean);
    if (wanted.length === present.length && wanted.every((label) => present.includes(label))) return Number(match[3]);
  }
  return undefined;
}

const projects = (headers: Record<string, string>, action: string) =>
  request(regapi.app).post("/reg/api2/projects/").set(headers).send({ action, group_id: MAPLE.groupId, doc: {} });
const graphql = (headers: Record<string, string>, requestId: string) =>
  request(regapi.app)
    .post("/graphql")
    .set({ ...headers, "X-Request-Id": requestId })
    .send({ query: `{ project(groupId: ${MAPLE.groupId}) { groupId } }` });

describe("GET /metrics", () => {
  let scraped: string;
  beforeAll(async () => {
    expect((await projects(maple, "get_project_list")).status).toBe(200);
    expect((await projects(maple, "get_project_list")).status).toBe(200);
    expect((await projects({ ...maple, "X-Request-Id": "unknown-action" }, "no_such_action")).status).toBe(400);
    expect((await graphql(maple, "graphql-ok")).status).toBe(200);
    expect((await graphql({}, "graphql-unauthenticated")).status).toBe(401);
    expect((await request(regapi.app).get("/healthz").set("X-Request-Id", "probe")).status).toBe(200);
    const response = await request(regapi.app).get("/metrics");
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
    scraped = response.text;
  });

  it("counts requests by endpoint, bounded action and status", () => {
    const counted = (endpoint: string, action: string, status: string) =>
      sample(scraped, "regapi_http_requests_total", { endpoint, action, status });
    expect(counted("/reg/api2/projects/", "get_project_list", "200")).toBe(2);
    expect(counted("/reg/api2/projects/", "other", "400")).toBe(1);
    expect(counted("/graphql", "project", "200")).toBe(1);
    expect(counted("/graphql", "project", "401")).toBe(1);
    expect(counted("/healthz", "none", "200")).toBe(1);
    expect(scraped).not.toContain("no_such_action");
  });

  it("has a latency histogram and a SQL-statements-per-request histogram", () => {
    const labels = { endpoint: "/reg/api2/projects/", action: "get_project_list" };
    expect(sample(scraped, "regapi_http_request_duration_seconds_count", labels)).toBe(2);
    expect(sample(scraped, "regapi_http_request_duration_seconds_sum", labels)).toBeGreaterThan(0);
    expect(sample(scraped, "regapi_http_request_duration_seconds_bucket", { ...labels, le: "+Inf" })).toBe(2);
    // Three REST requests, each authenticating at least (one statement).
    const endpoint = { endpoint: "/reg/api2/projects/" };
    expect(sample(scraped, "regapi_sql_statements_per_request_count", endpoint)).toBe(3);
    expect(sample(scraped, "regapi_sql_statements_per_request_sum", endpoint)).toBeGreaterThanOrEqual(3);
    expect(sample(scraped, "regapi_sql_statements_per_request_bucket", { ...endpoint, le: "0" })).toBe(0);
  });

  it("has the default process metrics", () => {
    expect(sample(scraped, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(sample(scraped, "nodejs_heap_size_used_bytes")).toBeGreaterThan(0);
  });

  (onMysqlFamily ? it : it.skip)("reports database pool usage (MySQL/MariaDB pool)", async () => {
    expect(sample(scraped, "regapi_db_pool_connections", { state: "max" })).toBe(10);
    // The GraphQL query's read-only COMMIT is sent, not awaited (read-snapshot.plugin.ts): on a
    // busy machine its connection can still be in use at the first scrape. It returns at once.
    let idle = sample(scraped, "regapi_db_pool_connections", { state: "idle" }) ?? 0;
    for (const deadline = Date.now() + 2000; idle < 1 && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const again = await request(regapi.app).get("/metrics");
      idle = sample(again.text, "regapi_db_pool_connections", { state: "idle" }) ?? 0;
    }
    expect(idle).toBeGreaterThanOrEqual(1);
    expect(sample(scraped, "regapi_db_pool_connections", { state: "in_use" })).toBeGreaterThanOrEqual(0);
    expect(sample(scraped, "regapi_db_pool_waiting_requests")).toBe(0);
  });

  (onMysqlFamily ? it.skip : it)("has no pool metrics on SQLite (one connection, no pool)", () => {
    expect(scraped).not.toContain("regapi_db_pool_connections");
  });

  it("reports the delivery backlog: a recorded event waits until a worker fans it out", async () => {
    const backlog = async () => {
      const text = (await request(regapi.app).get("/metrics")).text;
      return { events: sample(text, "regapi_delivery_backlog", { kind: "events" }), text };
    };
    const before = await backlog();
    expect(sample(before.text, "regapi_delivery_backlog", { kind: "webhooks" })).toBe(0);
    expect(sample(before.text, "regapi_delivery_backlog", { kind: "emails" })).toBe(0);
    // No worker runs in this app: the user.created event of a create stays in the backlog.
    const created = await request(regapi.app)
      .post("/reg/api2/users/")
      .set(maple)
      .send({
        action: "create",
        group_id: MAPLE.groupId,
        doc: { main_email: "backlog@maple.test", username: "backlog@maple.test", password: "secret-123" },
      });
    expect(created.status).toBe(200);
    expect((await backlog()).events).toBe(before.events! + 1);
  });

  it("keeps each app instance's counts in its own registry", async () => {
    const second = await createApp({
      dataSource: t.dataSource,
      logger: createLogger("silent"),
      config: testConfig({ graphqlIntrospection: true }),
    });
    try {
      const text = (await request(second.app).get("/metrics")).text;
      expect(
        sample(text, "regapi_http_requests_total", {
          endpoint: "/reg/api2/projects/",
          action: "get_project_list",
          status: "200",
        }),
      ).toBeUndefined();
      expect(sample(text, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
    } finally {
      await second.stop();
    }
  });

  const scrapeReruns = async (cause: string, action: string) =>
    sample((await request(regapi.app).get("/metrics")).text, "regapi_transaction_reruns_total", { cause, action }) ?? 0;
  const rerunLines = (action: string) =>
    capture.lines().filter((line) => line.msg === "transaction rerun" && line.action === action);

  itOnMysqlFamily(
    "counts transactions rerun after a deadlock by action, and logs each at info (issues 26, 33)",
    async () => {
      const before = await scrapeReruns("deadlock", "test.deadlock");
      const logged = rerunLines("test.deadlock").length;
      const [miles, bill] = [
        await uidOf(t.dataSource, MAPLE.groupId, MAPLE.miles),
        await uidOf(t.dataSource, MAPLE.groupId, MAPLE.bill),
      ];
      await deadlockTwoUnits(t.state, miles, bill);
      expect(await scrapeReruns("deadlock", "test.deadlock")).toBe(before + 1);
      expect(await scrapeReruns("exhausted", "test.deadlock")).toBe(0);
      const lines = rerunLines("test.deadlock");
      expect(lines).toHaveLength(logged + 1);
      expect(lines[lines.length - 1]).toMatchObject({
        level: 30,
        cause: "deadlock",
        errno: 1213,
        code: "ER_LOCK_DEADLOCK",
        run: 1,
        requestId: expect.stringMatching(/^deadlock-[ab]$/),
      });
    },
  );

  it("a rerun is counted under the action that named its unit of work and logged with the database's error (issue 33)", async () => {
    let runs = 0;
    const lockWait = Object.assign(new Error("Lock wait timeout exceeded; try restarting transaction"), {
      errno: 1205,
      code: "ER_LOCK_WAIT_TIMEOUT",
    });
    await inTransaction(t.context(), "test.lock_wait", async () => {
      runs += 1;
      if (runs < 3) throw lockWait;
    });
    expect(runs).toBe(3);
    expect(await scrapeReruns("lock_wait_timeout", "test.lock_wait")).toBe(2);
    expect(await scrapeReruns("deadlock", "test.lock_wait")).toBe(0);
    expect(
      rerunLines("test.lock_wait").map((line) => [line.level, line.cause, line.errno, line.code, line.run]),
    ).toEqual([
      [30, "lock_wait_timeout", 1205, "ER_LOCK_WAIT_TIMEOUT", 1],
      [30, "lock_wait_timeout", 1205, "ER_LOCK_WAIT_TIMEOUT", 2],
    ]);
  });
});

describe("access log lines", () => {
  const line = (requestId: string) =>
    capture.lines().find((entry) => entry.msg === "request" && entry.requestId === requestId);

  it("of failed requests carry error_code, action and api_id", async () => {
    expect(line("unknown-action")).toMatchObject({
      status: 400,
      error_code: "UNKNOWN_ACTION",
      action: "other",
      api_id: 15263,
      level: 40,
    });
    expect(line("graphql-unauthenticated")).toMatchObject({
      status: 401,
      error_code: "UNAUTHENTICATED",
      action: "project",
      api_id: null,
    });

    await request(regapi.app)
      .post("/reg/api2/users/")
      .set({ ...maple, "Api-Token": "wrong", "X-Request-Id": "wrong-token" })
      .send({ action: "create", group_id: MAPLE.groupId, doc: {} });
    // The account the caller claimed, so an operator can tell which client is failing.
    expect(line("wrong-token")).toMatchObject({
      status: 401,
      error_code: "UNAUTHENTICATED",
      action: "create",
      api_id: 15263,
    });
  });

  it("of a rate-limited request say RATE_LIMITED", async () => {
    for (let i = 0; i < 3; i += 1) await graphql({}, `limited-${i}`);
    expect(line("limited-2")).toMatchObject({ status: 429, error_code: "RATE_LIMITED", level: 40 });
  });

  it("of successful requests carry no error fields", () => {
    const ok = line("graphql-ok");
    expect(ok).toMatchObject({ status: 200, level: 30 });
    expect(ok).not.toHaveProperty("error_code");
  });

  it("of probes are at debug level", () => {
    expect(line("probe")).toMatchObject({ path: "/healthz", status: 200, level: 20 });
  });
});

describe("log format", () => {
  it("is pretty at a terminal and JSON otherwise, unless LOG_FORMAT says", () => {
    expect(resolveLogFormat("auto", true)).toBe("pretty");
    expect(resolveLogFormat("auto", false)).toBe("json");
    expect(resolveLogFormat("json", true)).toBe("json");
    expect(resolveLogFormat("pretty", false)).toBe("pretty");
  });

  it("pretty prints readable lines, still redacting secrets", async () => {
    const sink = new LogCapture();
    const logger = createLogger("info", sink, "pretty");
    logger.info({ status: 200, req: { headers: { "api-token": "tok-secret" } } }, "request");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sink.text).toMatch(/INFO.*request/);
    expect(sink.text).toContain("status: 200");
    expect(sink.text).not.toContain("tok-secret");
    expect(() => JSON.parse(sink.text.split("\n")[0])).toThrow();
  });
});
