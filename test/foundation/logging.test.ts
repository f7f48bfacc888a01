import { Writable } from "node:stream";
import request from "supertest";
import { createApp, type RegapiApp } from "../../src/app";
import { createRequestContext } from "../../src/domain/context";
import { loadFixture } from "../../src/fixtures/load-fixture";
import { createLogger } from "../../src/http/logger";
import { MAPLE, testFixture } from "../fixtures/test-fixture";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { testConfig } from "../support/test-config";

/** Log lines written by the app, kept in memory. */
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

const SECRET_PASSWORD = "Pa55word-that-must-not-leak";

let db: TestDatabase;
let regapi: RegapiApp;
const capture = new LogCapture();
beforeAll(async () => {
  db = await openTestDatabase();
  await loadFixture(createRequestContext(db.state, "fixture"), testFixture());
  regapi = await createApp({
    dataSource: db.dataSource,
    logger: createLogger("debug", capture),
    config: testConfig({ graphqlIntrospection: true }),
  });
});
afterAll(async () => {
  await regapi.stop();
  await db.dispose();
});

describe("request logs", () => {
  it("carry the request id and SQL statement count, and never the token or a password", async () => {
    const response = await request(regapi.app)
      .post("/reg/api2/users/")
      .set({
        "Api-Id": MAPLE.apiId,
        "Api-User": MAPLE.apiUser,
        "Api-Token": MAPLE.apiToken,
        "X-Request-Id": "log-test-1",
      })
      .send({
        action: "no_such_action",
        group_id: MAPLE.groupId,
        doc: { password: SECRET_PASSWORD, username: "new@maple.test" },
      });
    expect(response.status).toBe(400);
    // A refused token is not logged either.
    await request(regapi.app)
      .post("/reg/api2/users/")
      .set({ "Api-Id": MAPLE.apiId, "Api-User": MAPLE.apiUser, "Api-Token": "wrong-token-also-secret" })
      .send({ action: "create", group_id: MAPLE.groupId, doc: { password: SECRET_PASSWORD } });

    expect(capture.text).not.toContain(MAPLE.apiToken);
    expect(capture.text).not.toContain("wrong-token-also-secret");
    expect(capture.text).not.toContain(SECRET_PASSWORD);
    const line = capture.lines().find((entry) => entry.msg === "request" && entry.requestId === "log-test-1");
    expect(line).toMatchObject({ method: "POST", path: "/reg/api2/users/", status: 400, service: "regapi" });
    // Authentication read the account: at least one statement was counted for this request.
    expect(line?.sqlStatements).toEqual(expect.any(Number));
    expect(line?.sqlStatements).toBeGreaterThanOrEqual(1);
  });

  it("redact secrets a caller puts into a log object", () => {
    const sink = new LogCapture();
    const logger = createLogger("info", sink);
    logger.info({ req: { headers: { "api-token": "tok-1", authorization: "Bearer tok-2" } } }, "headers");
    logger.info(
      { doc: { password: "pw-3" }, user: { password: "pw-4", apiToken: "tok-5", token: "tok-6" } },
      "members",
    );
    logger.info({ password: "pw-7", body: { doc: { password: "pw-8" } } }, "top level and deep");
    for (const secret of ["tok-1", "tok-2", "pw-3", "pw-4", "tok-5", "tok-6", "pw-7", "pw-8"])
      expect(sink.text).not.toContain(secret);
    expect(sink.lines()[1]).toMatchObject({ doc: { password: "[redacted]" }, user: { password: "[redacted]" } });
  });
});
