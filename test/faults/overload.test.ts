import type { AddressInfo } from "node:net";
import request from "supertest";
import { DataSource } from "typeorm";
import { createApp, type RegapiApp } from "../../src/app";
import { DEFAULT_DELIVERY, DEFAULT_RESILIENCE } from "../../src/config/config";
import { DATABASE_FAILURE_MESSAGES, databaseFailureOf } from "../../src/db/database-failure";
import { buildDataSourceOptions, DEFAULT_DATABASE_CONNECTION } from "../../src/db/data-source-options";
import { createRequestContext } from "../../src/domain/context";
import { loadFixture } from "../../src/fixtures/load-fixture";
import { createLogger } from "../../src/http/logger";
import { MAPLE, mapleHeaders } from "../fixtures/test-fixture";
import { testFixture } from "../fixtures/test-fixture";
import {
  itOnMysqlFamily,
  onMysqlFamily,
  openTestDatabase,
  openRawConnection,
  type MysqlFamilyConfig,
  type TestDatabase,
} from "../support/database";
import { startTcpProxy } from "../support/tcp-proxy";
import { postRest } from "../support/rest";
import { hit } from "./support/load";
import { testConfig } from "../support/test-config";

// Issue 13 defects 8 and 9 and deliverable 2: a full pool, a slow statement, a database that
// does not answer or is gone: 503 SERVICE_UNAVAILABLE with Retry-After, within the configured
// bounds, on REST and GraphQL; never 500, never a hang.

const LIMITS = {
  ...DEFAULT_DATABASE_CONNECTION,
  poolSize: 2,
  queueLimit: 5,
  acquireTimeoutMs: 600,
  queryTimeoutMs: 1000,
};
const resilience = { ...DEFAULT_RESILIENCE, readinessTimeoutMs: 500, retryAfterSeconds: 3 };
const listProjects = { action: "get_project_list", group_id: MAPLE.groupId, doc: {} };

let db: TestDatabase;
let limited: DataSource;
let regapi: RegapiApp;

beforeAll(async () => {
  db = await openTestDatabase();
  await loadFixture(createRequestContext(db.state, "fixture"), testFixture());
  // The same database through a DataSource with a tiny pool and short timeouts.
  limited = onMysqlFamily ? new DataSource(buildDataSourceOptions(db.config, { connection: LIMITS })) : db.dataSource;
  if (!limited.isInitialized) await limited.initialize();
  regapi = await createApp({
    dataSource: limited,
    logger: createLogger("silent"),
    // The feed sequencer's look must not run while a test below holds every query unanswered:
    // its pass would wait for ever, and so would the app's stop.
    config: testConfig({
      graphqlIntrospection: false,
      resilience,
      delivery: { ...DEFAULT_DELIVERY, feedPollMs: 3_600_000, feedPollIdleMs: 3_600_000 },
    }),
  });
});
afterAll(async () => {
  await regapi.stop();
  if (limited !== db.dataSource && limited.isInitialized) await limited.destroy();
  await db.dispose();
});

const listProjectsRest = () => postRest(regapi.app, "projects", listProjects);
const postGraphql = () =>
  request(regapi.app).post("/graphql").set(mapleHeaders).send({ query: "{ projects { groupId } }" });

function expectUnavailable(res: request.Response) {
  expect(res.status).toBe(503);
  expect(res.headers["retry-after"]).toBe("3");
}

describe(onMysqlFamily ? "a full pool (MariaDB)" : "a full pool (MariaDB only; SQLite has no pool)", () => {
  itOnMysqlFamily(
    "200 concurrent requests on a pool of 2 with a queue of 5: each is 200 or 503 with Retry-After, none 500, and service resumes",
    async () => {
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) => (i % 2 ? listProjectsRest() : postGraphql())),
      );
      const statuses = answers.map((res) => res.status);
      expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
      expect(statuses).toContain(503);
      for (const res of answers.filter((r) => r.status === 503)) {
        expect(res.headers["retry-after"]).toBe("3");
        const code = res.body.error_code ?? res.body.errors?.[0]?.extensions?.code;
        expect(code).toBe("SERVICE_UNAVAILABLE");
      }
      // Shedding does not stick: the next request is served.
      expect((await listProjectsRest()).status).toBe(200);
    },
  );

  itOnMysqlFamily(
    "a request that cannot get a connection within the acquire timeout is 503 on REST and GraphQL",
    async () => {
      const holders = [limited.createQueryRunner(), limited.createQueryRunner()];
      await Promise.all(holders.map((runner) => runner.connect()));
      try {
        const started = Date.now();
        const [rest, graphql] = await Promise.all([listProjectsRest(), postGraphql()]);
        expectUnavailable(rest);
        expect(rest.body).toMatchObject({
          error_code: "SERVICE_UNAVAILABLE",
          msg: "The database is unavailable; try again shortly.",
        });
        expectUnavailable(graphql);
        expect(graphql.body.errors[0].extensions.code).toBe("SERVICE_UNAVAILABLE");
        expect(Date.now() - started).toBeLessThan(LIMITS.acquireTimeoutMs + 1500);
      } finally {
        await Promise.all(holders.map((runner) => runner.release()));
      }
      expect((await listProjectsRest()).status).toBe(200);
    },
  );

  itOnMysqlFamily(
    "a statement that runs past the query timeout is stopped by the server and counts as overload",
    async () => {
      const started = Date.now();
      const error = await limited.query("SELECT SLEEP(5)").then(
        (rows: unknown) => rows,
        (failure: unknown) => failure,
      );
      // MariaDB's max_statement_time makes SLEEP return 1 (interrupted) instead of raising.
      const interrupted = Array.isArray(error) && Number(Object.values(error[0] as object)[0]) === 1;
      expect(interrupted || databaseFailureOf(error) !== null).toBe(true);
      expect(Date.now() - started).toBeLessThan(LIMITS.queryTimeoutMs + 1000);
    },
  );
});

describe("a read stopped at the statement timeout (issue 35)", () => {
  itOnMysqlFamily("is answered 503 saying that the query took too long, the same on REST and GraphQL", async () => {
    // Another session's table lock keeps the reads of registration waiting until the server
    // stops them at the statement timeout (max_statement_time also ends a wait for a lock).
    const config = db.config as MysqlFamilyConfig;
    const holder = await openRawConnection(config);
    await holder.query("LOCK TABLES registration WRITE");
    try {
      const started = Date.now();
      const [rest, graphql] = await Promise.all([
        postRest(regapi.app, "users", { action: "get_user_list", group_id: MAPLE.groupId, doc: {} }),
        request(regapi.app)
          .post("/graphql")
          .set(mapleHeaders)
          .send({ query: `{ users(groupId: ${MAPLE.groupId}, filter: { search: "davis" }) { totalCount } }` }),
      ]);
      const tooSlow = DATABASE_FAILURE_MESSAGES.too_slow;
      expect(tooSlow).toMatch(/^The query took too long/);
      expectUnavailable(rest);
      expect(rest.body).toMatchObject({ error_code: "SERVICE_UNAVAILABLE", msg: tooSlow });
      expectUnavailable(graphql);
      expect(graphql.body.errors[0]).toMatchObject({ message: tooSlow, extensions: { code: "SERVICE_UNAVAILABLE" } });
      expect(Date.now() - started).toBeLessThan(LIMITS.queryTimeoutMs + 3000);
    } finally {
      await holder.query("UNLOCK TABLES");
      await holder.end();
    }
    expect(
      (await postRest(regapi.app, "users", { action: "get_user_list", group_id: MAPLE.groupId, doc: {} })).status,
    ).toBe(200);
  });
});

describe("admission by waiting time (issue 21)", () => {
  // The pool's limit on waiters is a count only as a memory backstop (DATABASE_QUEUE_LIMIT,
  // 10,000): a request is refused for overload when it would wait past the acquire timeout.
  const admission = { ...LIMITS, queueLimit: DEFAULT_DATABASE_CONNECTION.queueLimit, acquireTimeoutMs: 3000 };

  itOnMysqlFamily(
    "a burst of 300 concurrent requests (more than the former count bound of 200) that a pool of 2 works through within the deadline is served in full",
    async () => {
      // A 5 s deadline (the policy allows 3–5 s): on a loaded CI machine 300 requests on 2
      // connections take 2–4 s, and the test is about the count bound (200 by default before),
      // not about the machine's speed.
      const burstSource = new DataSource(
        buildDataSourceOptions(db.config, { connection: { ...admission, acquireTimeoutMs: 5000 } }),
      );
      await burstSource.initialize();
      const app = await createApp({
        dataSource: burstSource,
        logger: createLogger("silent"),
        config: testConfig({ graphqlIntrospection: false, resilience }),
      });
      // One listening server: supertest would open one per request.
      const server = app.app.listen(0, "127.0.0.1");
      await new Promise((resolve) => server.once("listening", resolve));
      const port = (server.address() as AddressInfo).port;
      try {
        const answers = await Promise.all(Array.from({ length: 300 }, (_, i) => hit(port, i)));
        const statuses = answers.map((answer) => answer.status);
        // With a count bound of 5 (the pool above) most of these were refused at once.
        expect(statuses.filter((status) => status !== 200)).toEqual([]);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
        await app.stop();
        await burstSource.destroy();
      }
    },
  );

  itOnMysqlFamily(
    "statements that cannot start within the acquire timeout are refused well before it, as overload; the others run",
    async () => {
      const slow = new DataSource(
        buildDataSourceOptions(db.config, { connection: { ...admission, acquireTimeoutMs: 1000 } }),
      );
      await slow.initialize();
      try {
        // Twelve holds of about 250 ms teach the pool what a hold costs now.
        for (let round = 0; round < 6; round += 1)
          await Promise.all([slow.query("SELECT SLEEP(0.25)"), slow.query("SELECT SLEEP(0.25)")]);
        // Twenty-four more at once on 2 connections: about 250 ms each, two at a time, so about
        // 8 start within the 1 s acquire timeout (at 0, 250, 500 and 750 ms) and the rest cannot.
        const started = Date.now();
        const outcomes = await Promise.all(
          Array.from({ length: 24 }, () =>
            slow.query("SELECT SLEEP(0.25)").then(
              () => ({ ok: true, ms: Date.now() - started, failure: null }),
              (error: unknown) => ({ ok: false, ms: Date.now() - started, failure: databaseFailureOf(error) }),
            ),
          ),
        );
        const served = outcomes.filter((outcome) => outcome.ok);
        const refused = outcomes.filter((outcome) => !outcome.ok);
        expect(served.length).toBeGreaterThanOrEqual(6);
        expect(refused.length).toBeGreaterThanOrEqual(12);
        for (const outcome of refused) {
          expect(outcome.failure).toBe("overloaded");
          // Refused before the timeout, not after waiting it out (an acquire timeout would be
          // "unavailable"): a waiter is judged again as the measured holds move.
          expect(outcome.ms).toBeLessThan(1000);
        }
        // Most are told at the first judgement, a quarter of the way into the timeout (250 ms).
        expect(refused.filter((outcome) => outcome.ms < 600).length).toBeGreaterThanOrEqual(10);
      } finally {
        await slow.destroy();
      }
    },
  );
});

describe("a database that does not answer", () => {
  it("/readyz answers 503 within the readiness timeout", async () => {
    const query = jest.spyOn(limited, "query").mockReturnValue(new Promise(() => undefined));
    try {
      const started = Date.now();
      const res = await request(regapi.app).get("/readyz");
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: "unavailable", database: "down" });
      expect(Date.now() - started).toBeLessThan(resilience.readinessTimeoutMs + 1000);
    } finally {
      query.mockRestore();
    }
  });
});

describe("a database that is gone", () => {
  it("REST and GraphQL answer 503 SERVICE_UNAVAILABLE with Retry-After, and /readyz 503", async () => {
    const gone = new DataSource(buildDataSourceOptions(db.config, { connection: LIMITS }));
    await gone.initialize();
    const app = await createApp({
      dataSource: gone,
      logger: createLogger("silent"),
      config: testConfig({ graphqlIntrospection: false, resilience }),
    });
    await gone.destroy();
    try {
      const rest = await request(app.app).post("/reg/api2/projects/").set(mapleHeaders).send(listProjects);
      expectUnavailable(rest);
      expect(rest.body.error_code).toBe("SERVICE_UNAVAILABLE");
      const graphql = await request(app.app)
        .post("/graphql")
        .set(mapleHeaders)
        .send({ query: "{ projects { groupId } }" });
      expectUnavailable(graphql);
      expect(graphql.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual([
        "SERVICE_UNAVAILABLE",
      ]);
      expect((await request(app.app).get("/readyz")).status).toBe(503);
    } finally {
      await app.stop();
    }
  });
});

describe("a database that is gone, with rate limits (issue 22)", () => {
  it("answers every request 503, never 401 or 429: a request it cannot authenticate spends no budget", async () => {
    const gone = new DataSource(buildDataSourceOptions(db.config, { connection: LIMITS }));
    await gone.initialize();
    const app = await createApp({
      dataSource: gone,
      logger: createLogger("silent"),
      config: testConfig({
        graphqlIntrospection: false,
        resilience,
        accountCacheTtlMs: 0,
        // Two requests a minute: the third from one address would be refused if these counted.
        rateLimit: { perMinute: 2, unauthenticatedPerMinute: 2 },
      }),
    });
    await gone.destroy();
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i += 1) {
        statuses.push((await request(app.app).post("/reg/api2/projects/").set(mapleHeaders).send(listProjects)).status);
        statuses.push(
          (await request(app.app).post("/graphql").set(mapleHeaders).send({ query: "{ projects { groupId } }" }))
            .status,
        );
      }
      expect(statuses).toEqual(statuses.map(() => 503));
    } finally {
      await app.stop();
    }
    // The same limits with the database up: wrong credentials spend the address's budget, so the
    // third request is refused. The limiter was on above; it only spared the database's failures.
    const healthy = await createApp({
      dataSource: db.dataSource,
      logger: createLogger("silent"),
      config: testConfig({
        graphqlIntrospection: false,
        accountCacheTtlMs: 0,
        rateLimit: { perMinute: 2, unauthenticatedPerMinute: 2 },
      }),
    });
    try {
      const wrong = { ...mapleHeaders, "Api-Token": "not-the-token" };
      const statuses: number[] = [];
      for (let i = 0; i < 3; i += 1)
        statuses.push((await request(healthy.app).post("/reg/api2/projects/").set(wrong).send(listProjects)).status);
      expect(statuses).toEqual([401, 401, 429]);
    } finally {
      await healthy.stop();
    }
  });
});

describe("a database that stops answering in the middle of a transaction (issue 22)", () => {
  itOnMysqlFamily(
    "the write is answered 503 after one statement timeout: its ROLLBACK does not wait another",
    async () => {
      const config = db.config as MysqlFamilyConfig;
      const proxy = await startTcpProxy(config.port, config.host);
      const frozenPath = new DataSource(
        buildDataSourceOptions({ ...config, host: "127.0.0.1", port: proxy.port }, { connection: LIMITS }),
      );
      await frozenPath.initialize();
      const app = await createApp({
        dataSource: frozenPath,
        logger: createLogger("silent"),
        config: testConfig({ graphqlIntrospection: false, resilience, accountCacheTtlMs: 60_000 }),
      });
      try {
        // Authenticated and warmed up while the server answers.
        expect((await postRest(app.app, "projects", listProjects)).status).toBe(200);
        // The server stops answering inside the transaction: at its first statement after BEGIN
        // (set_status locks the user's family first).
        proxy.freezeOn(/FOR UPDATE/);
        const started = Date.now();
        const res = await request(app.app)
          .post("/reg/api2/users/")
          .set(mapleHeaders)
          .send({ action: "set_status", group_id: MAPLE.groupId, clogin_id: MAPLE.miles, status_id: 0 });
        const took = Date.now() - started;
        expectUnavailable(res);
        // The client-side statement timeout is 1.5 s (LIMITS): once, not once for the statement and
        // once more for the ROLLBACK queued behind it on the same connection.
        expect(took).toBeLessThan(LIMITS.queryTimeoutMs + 500 + 900);
        proxy.thaw();
        // The connection that timed out was given up; the pool serves the next request on a new one.
        expect((await postRest(app.app, "projects", listProjects)).status).toBe(200);
      } finally {
        proxy.thaw();
        await app.stop();
        await frozenPath.destroy();
        await proxy.close();
      }
    },
  );
});
