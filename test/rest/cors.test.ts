import request from "supertest";
import { MAPLE, mapleHeaders } from "../fixtures/test-fixture";
import { startTestApp, type TestApp } from "../support/test-app";

// Browser apps on an allowed origin may call REST and GraphQL; any other origin gets no CORS
// headers (the browser then withholds the answer), and with no CORS_ORIGINS nobody does.
const ALLOWED = "https://app.maple.test";
const REFUSED = "https://evil.example";

let t: TestApp;
let closed: TestApp;
beforeAll(async () => {
  t = await startTestApp({ config: { corsOrigins: [ALLOWED] } });
  closed = await startTestApp();
});
afterAll(async () => {
  await t.close();
  await closed.close();
});

const listProjects = { action: "get_project_list", group_id: MAPLE.groupId, doc: {} };

const preflight = (app: TestApp["app"], path: string, origin: string) =>
  request(app)
    .options(path)
    .set("Origin", origin)
    .set("Access-Control-Request-Method", "POST")
    .set("Access-Control-Request-Headers", "content-type,api-id,api-user,api-token,authorization,idempotency-key");

describe("CORS with an allowlist (CORS_ORIGINS)", () => {
  for (const path of ["/reg/api2/projects/", "/graphql"]) {
    it(`${path}: a preflight from an allowed origin is answered 204 with the API and Authorization headers allowed`, async () => {
      const res = await preflight(t.app, path, ALLOWED);
      expect(res.status).toBe(204);
      expect(res.headers["access-control-allow-origin"]).toBe(ALLOWED);
      expect(res.headers["access-control-allow-methods"]).toContain("POST");
      const allowed = String(res.headers["access-control-allow-headers"]).toLowerCase().split(",");
      for (const header of [
        "content-type",
        "api-id",
        "api-user",
        "api-token",
        "authorization",
        "timestamp",
        "idempotency-key",
      ]) {
        expect(allowed).toContain(header);
      }
    });

    it(`${path}: a preflight from another origin gets no Access-Control-Allow-Origin, so the browser refuses`, async () => {
      const res = await preflight(t.app, path, REFUSED);
      expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    });
  }

  it("a REST call from the allowed origin carries Access-Control-Allow-Origin and exposes the request id", async () => {
    const res = await request(t.app)
      .post("/reg/api2/projects/")
      .set(mapleHeaders)
      .set("Origin", ALLOWED)
      .send(listProjects);
    expect(res.status).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBe(ALLOWED);
    expect(String(res.headers["access-control-expose-headers"])).toContain("X-Request-Id");
  });

  it("a GraphQL call from the allowed origin carries Access-Control-Allow-Origin; CSRF prevention stays on", async () => {
    const res = await request(t.app)
      .post("/graphql")
      .set(mapleHeaders)
      .set("Origin", ALLOWED)
      .send({ query: "{ projects { groupId } }" });
    expect(res.status).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBe(ALLOWED);
    const simple = await request(t.app).get("/graphql?query=%7B__typename%7D").set(mapleHeaders).set("Origin", ALLOWED);
    expect(simple.status).toBe(400);
  });

  it("a write retried with Idempotency-Key from the allowed origin: the browser may read Idempotent-Replayed (issue 20)", async () => {
    const write = () =>
      request(t.app)
        .post("/reg/api2/statuses/")
        .set(mapleHeaders)
        .set("Origin", ALLOWED)
        .set("Idempotency-Key", "cors-retry-1")
        .send({ action: "create", group_id: MAPLE.groupId, doc: { status_name: "Cors retry", color: "#123456" } });
    const first = await write();
    expect(first.status).toBe(200);
    const replay = await write();
    expect(replay.status).toBe(200);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.headers["access-control-allow-origin"]).toBe(ALLOWED);
    const exposed = String(replay.headers["access-control-expose-headers"]).toLowerCase().split(",");
    expect(exposed).toContain("idempotent-replayed");
    expect(replay.text).toBe(first.text);
  });

  it("a call from another origin gets no Access-Control-Allow-Origin", async () => {
    const res = await request(t.app)
      .post("/reg/api2/projects/")
      .set(mapleHeaders)
      .set("Origin", REFUSED)
      .send(listProjects);
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("without CORS_ORIGINS there is no cross-origin access at all", async () => {
    const res = await preflight(closed.app, "/reg/api2/projects/", ALLOWED);
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    const call = await request(closed.app)
      .post("/reg/api2/projects/")
      .set(mapleHeaders)
      .set("Origin", ALLOWED)
      .send(listProjects);
    expect(call.status).toBe(200);
    expect(call.headers["access-control-allow-origin"]).toBeUndefined();
  });
});
