import request from "supertest";
import { createApp } from "../../src/app";
import { createLogger } from "../../src/http/logger";
import { openTestDatabase } from "../support/database";
import { startTestApp, type TestApp } from "../support/test-app";
import { testConfig } from "../support/test-config";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ fixture: null });
});
afterAll(() => t.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("health", () => {
  it("GET /healthz answers 200 while the process lives", async () => {
    const response = await request(t.app).get("/healthz");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: "ok" });
  });

  it("GET /readyz answers 200 when the database answers", async () => {
    const response = await request(t.app).get("/readyz");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: "ready", database: "up" });
  });

  it("GET /readyz answers 503 once the database is gone, while /healthz stays 200", async () => {
    // A database of its own: this test closes it.
    const db = await openTestDatabase();
    const regapi = await createApp({
      dataSource: db.dataSource,
      logger: createLogger("silent"),
      config: testConfig({ graphqlIntrospection: false }),
    });
    expect((await request(regapi.app).get("/readyz")).status).toBe(200);
    await db.dispose();
    const response = await request(regapi.app).get("/readyz");
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ status: "unavailable", database: "down" });
    expect((await request(regapi.app).get("/healthz")).status).toBe(200);
    await regapi.stop();
  });

  it("GET /readyz answers 503 once the app is stopping, so a balancer drains it", async () => {
    const regapi = await createApp({
      dataSource: t.dataSource,
      logger: createLogger("silent"),
      config: testConfig({ graphqlIntrospection: false }),
    });
    await regapi.stop();
    const response = await request(regapi.app).get("/readyz");
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ status: "shutting_down" });
  });
});

describe("X-Request-Id", () => {
  it("is echoed when the client sends one", async () => {
    const response = await request(t.app).get("/healthz").set("X-Request-Id", "client-id.42:abc");
    expect(response.headers["x-request-id"]).toBe("client-id.42:abc");
  });

  it("is generated when absent, different for each request", async () => {
    const first = (await request(t.app).get("/healthz")).headers["x-request-id"];
    const second = (await request(t.app).get("/healthz")).headers["x-request-id"];
    expect(first).toMatch(UUID);
    expect(second).toMatch(UUID);
    expect(second).not.toBe(first);
  });

  it.each([["with spaces in it"], ["x".repeat(129)], ["<script>"]])(
    "is replaced when unsafe to echo: %s",
    async (sent) => {
      const response = await request(t.app).get("/healthz").set("X-Request-Id", sent);
      expect(response.headers["x-request-id"]).toMatch(UUID);
    },
  );

  it("is on 404 answers too, and in their body", async () => {
    const response = await request(t.app).get("/no/such/route").set("X-Request-Id", "trace-404");
    expect(response.status).toBe(404);
    expect(response.headers["x-request-id"]).toBe("trace-404");
    expect(response.body.request_id).toBe("trace-404");
  });
});

describe("unknown routes", () => {
  it("answer 404 with a JSON body", async () => {
    const response = await request(t.app).post("/nowhere?x=1").send({ a: 1 });
    expect(response.status).toBe(404);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    expect(response.body).toEqual({
      success: false,
      msg: "No route for POST /nowhere.",
      msg_type: "error",
      error_code: "NOT_FOUND",
      request_id: response.headers["x-request-id"],
    });
  });
});
