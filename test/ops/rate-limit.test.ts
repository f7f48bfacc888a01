import type { Express } from "express";
import Redis from "ioredis";
import request from "supertest";
import { createApp, type RegapiApp } from "../../src/app";
import type { RateLimitConfig } from "../../src/config/config";
import { createLogger } from "../../src/http/logger";
import { MAPLE, OTHER } from "../fixtures/test-fixture";
import { startTestApp, type TestApp } from "../support/test-app";
import { testConfig } from "../support/test-config";

const REDIS_URL = "redis://127.0.0.1:6379";
// A prefix of this run only: parallel runs and earlier runs never share counts.
const REDIS_PREFIX = `regapi-test:${process.pid}:${Date.now()}:`;

let t: TestApp;
const apps: RegapiApp[] = [];
beforeAll(async () => {
  t = await startTestApp({ config: { accountCacheTtlMs: 0 } });
});
afterAll(async () => {
  for (const app of apps) await app.stop();
  await t.close();
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${REDIS_PREFIX}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

/** Another app on the test database with its own limiter. */
async function appWith(rateLimit: Partial<RateLimitConfig>, redisUrl: string | null = null): Promise<Express> {
  const regapi = await createApp({
    dataSource: t.dataSource,
    logger: createLogger("silent"),
    config: testConfig({
      graphqlIntrospection: true,
      // Every request reads its account: "authenticate once" is then visible in statement counts.
      accountCacheTtlMs: 0,
      rateLimit: { perMinute: 3, unauthenticatedPerMinute: 2, ...rateLimit },
      sharedState: { redisUrl, keyPrefix: REDIS_PREFIX },
    }),
  });
  apps.push(regapi);
  return regapi.app;
}

const maple = { "Api-Id": MAPLE.apiId, "Api-User": MAPLE.apiUser, "Api-Token": MAPLE.apiToken };
const other = { "Api-Id": OTHER.apiId, "Api-User": OTHER.apiUser, "Api-Token": OTHER.apiToken };
const wrongToken = { ...maple, "Api-Token": "not-the-token" };

const rest = (app: Express, headers: Record<string, string>, groupId: number = MAPLE.groupId) =>
  request(app)
    .post("/reg/api2/projects/")
    .set(headers)
    .send({ action: "get_project_list", group_id: groupId, doc: {} });

const graphql = (app: Express, headers: Record<string, string>) =>
  request(app)
    .post("/graphql")
    .set(headers)
    .send({ query: `{ project(groupId: ${MAPLE.groupId}) { groupId } }` });

describe("rate limits (memory store)", () => {
  let app: Express;
  beforeAll(async () => {
    app = await appWith({});
  });

  it("count an account's requests across REST and GraphQL, with RateLimit headers, then answer 429 RATE_LIMITED", async () => {
    const first = await rest(app, maple);
    expect(first.status).toBe(200);
    expect(first.headers["ratelimit-policy"]).toMatch(/^"per-account"; q=3; w=60; pk=:[^:]+:$/);
    expect(first.headers.ratelimit).toMatch(/^"per-account"; r=2; t=\d+$/);
    expect((await graphql(app, maple)).status).toBe(200);
    expect((await rest(app, maple)).headers.ratelimit).toMatch(/^"per-account"; r=0; t=\d+$/);

    const refused = await rest(app, maple);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(60);
    expect(refused.body).toEqual({
      success: false,
      msg: `Too many requests: the limit is 3 per minute for this API account; retry after ${refused.headers["retry-after"]} s.`,
      msg_type: "error",
      error_code: "RATE_LIMITED",
      request_id: refused.headers["x-request-id"],
    });

    const refusedGraphql = await graphql(app, maple);
    expect(refusedGraphql.status).toBe(429);
    expect(refusedGraphql.headers["retry-after"]).toMatch(/^\d+$/);
    expect(refusedGraphql.body).toEqual({
      errors: [
        {
          message: expect.stringMatching(/^Too many requests: the limit is 3 per minute/),
          extensions: { code: "RATE_LIMITED" },
        },
      ],
    });
  });

  it("authenticate once: a limited request issues as many SQL statements as an unlimited one", async () => {
    const fresh = await appWith({ perMinute: 100 });
    const unlimited = await t.countStatements(() => rest(t.app, maple));
    const limited = await t.countStatements(() => rest(fresh, maple));
    expect(limited.result.status).toBe(200);
    expect(limited.result.headers.ratelimit).toBeDefined();
    expect(limited.statements).toBe(unlimited.statements);
  });

  it("keep each account's budget apart", async () => {
    const response = await rest(app, other, OTHER.groupId);
    expect(response.status).toBe(200);
    expect(response.headers.ratelimit).toMatch(/^"per-account"; r=2;/);
  });

  it("count unauthenticated requests (wrong credentials too) per IP, not against the account they name", async () => {
    const fresh = await appWith({});
    expect((await rest(fresh, wrongToken)).status).toBe(401);
    const second = await rest(fresh, {});
    expect(second.status).toBe(401);
    expect(second.headers.ratelimit).toMatch(/^"per-ip"; r=0;/);
    const third = await rest(fresh, wrongToken);
    expect(third.status).toBe(429);
    expect(third.body.msg).toMatch(
      /^Too many requests: the limit is 2 per minute for unauthenticated requests from this address/,
    );
    // The account named by the wrong credentials still has its whole budget.
    expect((await rest(fresh, maple)).headers.ratelimit).toMatch(/^"per-account"; r=2;/);
  });

  it("never limit /healthz, /readyz or /metrics", async () => {
    const fresh = await appWith({ unauthenticatedPerMinute: 1 });
    for (const path of ["/healthz", "/readyz", "/metrics"]) {
      for (let i = 0; i < 4; i += 1) {
        const response = await request(fresh).get(path);
        expect(response.status).toBe(200);
        expect(response.headers.ratelimit).toBeUndefined();
      }
    }
  });

  it("switch a limit off with 0: no count, no headers", async () => {
    const fresh = await appWith({ unauthenticatedPerMinute: 0 });
    for (let i = 0; i < 4; i += 1) {
      const response = await rest(fresh, {});
      expect(response.status).toBe(401);
      expect(response.headers.ratelimit).toBeUndefined();
    }
    expect((await rest(fresh, maple)).headers.ratelimit).toMatch(/^"per-account"; r=2;/);
  });
});

describe("rate limits (Redis store at 127.0.0.1:6379)", () => {
  it("share one budget between two app instances", async () => {
    const [first, second] = [await appWith({ perMinute: 4 }, REDIS_URL), await appWith({ perMinute: 4 }, REDIS_URL)];
    const statuses: number[] = [];
    for (const app of [first, second, first, second, first, second]) statuses.push((await rest(app, maple)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    const redis = new Redis(REDIS_URL);
    try {
      // Under the one REDIS_KEY_PREFIX, beside the walk positions and the key-change channel.
      expect(await redis.keys(`${REDIS_PREFIX}*`)).toEqual([`${REDIS_PREFIX}rate-limit:account:${MAPLE.apiId}`]);
    } finally {
      await redis.quit();
    }
  });

  it("let requests through when Redis cannot be reached", async () => {
    const app = await appWith({}, "redis://127.0.0.1:1");
    for (let i = 0; i < 5; i += 1) expect((await rest(app, maple)).status).toBe(200);
  });

  it("a stopped app leaves no timer behind when Redis could not be reached (issue 20)", async () => {
    // ioredis kept a 2 s timer after closing a client whose socket had already closed: the
    // process stayed up that long after stop(), and Jest reported a worker that would not exit.
    const timers = () => process.getActiveResourcesInfo().filter((type) => type === "Timeout").length;
    const before = timers();
    const regapi = await createApp({
      dataSource: t.dataSource,
      logger: createLogger("silent"),
      config: testConfig({
        graphqlIntrospection: true,
        accountCacheTtlMs: 0,
        rateLimit: { perMinute: 3, unauthenticatedPerMinute: 2 },
        sharedState: { redisUrl: "redis://127.0.0.1:1", keyPrefix: REDIS_PREFIX },
      }),
    });
    expect((await rest(regapi.app, maple)).status).toBe(200);
    await regapi.stop();
    // The socket is destroyed on the next timer tick (disconnectTimeout 0), not 2 s later. The
    // wait stops short of those 2 s, so the old timer still fails it, yet leaves a process that
    // gets a sliver of a core on a loaded machine time to run its next tick (1 s was not enough
    // there).
    const deadline = Date.now() + 1800;
    while (timers() > before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(timers()).toBeLessThanOrEqual(before);
  });
});
