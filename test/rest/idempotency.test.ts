import { createHash } from "node:crypto";
import type { Express } from "express";
import request, { type Response } from "supertest";
import { DataSource } from "typeorm";
import { createApp, type RegapiApp } from "../../src/app";
import { claimIdempotencyKey, findIdempotencyRecord, storeIdempotentAnswer } from "../../src/data/idempotency.data";
import { buildDataSourceOptions } from "../../src/db/data-source-options";
import { IdempotencyKey } from "../../src/entities";
import { canonicalJson } from "../../src/http/idempotency";
import { createLogger } from "../../src/http/logger";
import { MAPLE, mapleHeaders, OTHER } from "../fixtures/test-fixture";
import { onMysqlFamily } from "../support/database";
import { expectLegacyError } from "../support/legacy-error";
import { watchTables } from "../support/tables";
import { startTestApp, type TestApp } from "../support/test-app";
import { testConfig } from "../support/test-config";
import { STATEMENT_COUNTING } from "../support/test-config";

// Idempotency-Key (docs/rest-openapi.md): the first answer of a write is stored per API account
// and replayed byte for byte for a repeat with the same key and body; another body is a 409;
// concurrent repeats, also through another instance on the same database, wait for the first.

const WAIT_MS = 400;
const otherHeaders = { "Api-Id": OTHER.apiId, "Api-User": OTHER.apiUser, "Api-Token": OTHER.apiToken };

let t: TestApp;
const extraApps: RegapiApp[] = [];
const extraDataSources: DataSource[] = [];
beforeAll(async () => {
  t = await startTestApp({ config: { ...STATEMENT_COUNTING, idempotencyWaitMs: WAIT_MS } });
});
afterAll(async () => {
  for (const app of extraApps) await app.stop();
  for (const dataSource of extraDataSources) await dataSource.destroy();
  await t.close();
});

/** A second service instance: on MariaDB with its own connection pool to the same database. */
async function secondInstance(): Promise<Express> {
  let dataSource = t.dataSource;
  if (onMysqlFamily) {
    dataSource = new DataSource(buildDataSourceOptions(t.config));
    await dataSource.initialize();
    extraDataSources.push(dataSource);
  }
  const regapi = await createApp({
    dataSource,
    logger: createLogger("silent"),
    config: testConfig({ graphqlIntrospection: true, idempotencyWaitMs: 5_000 }),
  });
  extraApps.push(regapi);
  return regapi.app;
}

const post = (
  app: Express,
  endpoint: string,
  body: unknown,
  key?: string,
  headers: Record<string, string> = mapleHeaders,
) => {
  const req = request(app).post(`/reg/api2/${endpoint}/`).set(headers).set("Content-Type", "application/json");
  if (key !== undefined) req.set("Idempotency-Key", key);
  return req.send(typeof body === "string" ? body : JSON.stringify(body));
};

const count = async (sql: string, parameters: unknown[] = []) =>
  Number(((await t.dataSource.query(sql, parameters)) as { n: number | string }[])[0].n);
const registrations = () => count("SELECT COUNT(*) AS n FROM registration WHERE project_id = ?", [MAPLE.groupId]);
const idempotencyRows = () => count("SELECT COUNT(*) AS n FROM idempotency_key");

let serial = 0;
const uniqueKey = (label: string) => `${label}-${process.pid}-${++serial}`;
const newUser = (name: string) => ({
  action: "create",
  group_id: MAPLE.groupId,
  doc: { username: `${name}@maple.test`, main_email: `${name}@maple.test`, first_name: name, last_name: "Idem" },
});

function expectReplayOf(replay: Response, first: Response) {
  expect(replay.status).toBe(first.status);
  expect(replay.text).toBe(first.text);
  expect(replay.headers["content-type"]).toBe(first.headers["content-type"]);
  expect(replay.headers["idempotent-replayed"]).toBe("true");
  expect(first.headers["idempotent-replayed"]).toBeUndefined();
}

describe("Idempotency-Key on REST writes", () => {
  it("create: a repeat with the same key and body gets the first answer, byte for byte, and registers once", async () => {
    const key = uniqueKey("create");
    const before = await registrations();
    const first = await post(t.app, "users", newUser("ella"), key);
    expect(first.status).toBe(200);
    expect(first.body.success).toBe(true);
    // The same body with members in another order and other white space is the same request.
    const reordered = `{ "doc": { "last_name": "Idem", "first_name": "ella", "main_email": "ella@maple.test",
      "username": "ella@maple.test" }, "group_id": ${MAPLE.groupId}, "action": "create" }`;
    const replay = await post(t.app, "users", reordered, key);
    expectReplayOf(replay, first);
    expect(await registrations()).toBe(before + 1);
    // Without the key the same body is a new request (here: the username is taken).
    const again = await post(t.app, "users", newUser("ella"));
    expect(again.text).not.toBe(first.text);
  });

  it("the same key with another body is 409 IDEMPOTENCY_KEY_REUSED and writes nothing", async () => {
    const key = uniqueKey("reuse");
    expect((await post(t.app, "users", newUser("oscar"), key)).status).toBe(200);
    const tables = await watchTables(t.dataSource);
    const res = await post(t.app, "users", newUser("oscar2"), key);
    expectLegacyError(res, 409, "IDEMPOTENCY_KEY_REUSED", {
      msg: `Idempotency-Key ${key} was already used with a different request; send a new key for a new request.`,
    });
    await tables.expectNothingWritten();
    // Another endpoint with the same key is another request too.
    const elsewhere = await post(
      t.app,
      "statuses",
      { action: "create", group_id: MAPLE.groupId, doc: { status_name: "Reuse", color: "#123456" } },
      key,
    );
    expectLegacyError(elsewhere, 409, "IDEMPOTENCY_KEY_REUSED", { msg: /already used/ });
  });

  it("add_email: the repeat records the emails once", async () => {
    const key = uniqueKey("add-email");
    const body = {
      action: "add_email",
      group_id: MAPLE.groupId,
      clogin_id: MAPLE.miles,
      doc: { email_list: [{ from: "office@maple.test", to: "miles@maple.test", subject: "Hi", body: "Once" }] },
    };
    const emails = () => count("SELECT COUNT(*) AS n FROM email_record");
    const before = await emails();
    const first = await post(t.app, "users", body, key);
    expect(first.status).toBe(200);
    expectReplayOf(await post(t.app, "users", body, key), first);
    expect(await emails()).toBe(before + 1);
  });

  it("add_product: the repeat puts the products in the cart once", async () => {
    const key = uniqueKey("add-product");
    const body = {
      action: "add_product",
      group_id: MAPLE.groupId,
      clogin_id: MAPLE.miles,
      product_list: [{ name: "Towel", price: "5.00", q: 2 }],
    };
    const lines = () => count("SELECT COUNT(*) AS n FROM cart_line");
    const before = await lines();
    const first = await post(t.app, "users", body, key);
    expect(first.status).toBe(200);
    expectReplayOf(await post(t.app, "users", body, key), first);
    expect(await lines()).toBe(before + 1);
  });

  it("a refused write (4xx) is replayed too, with the first request's body (and request_id)", async () => {
    const key = uniqueKey("invalid");
    const body = { action: "create", group_id: MAPLE.groupId, doc: { status_name: "", color: "red" } };
    const first = await post(t.app, "statuses", body, key);
    expectLegacyError(first, 400, "VALIDATION_FAILED", {
      msg: /and 1 more problem/,
      errors: [{ path: "doc.status_name" }, { path: "doc.color" }],
    });
    const replay = await post(t.app, "statuses", body, key);
    expectReplayOf(replay, first);
    expect(replay.headers["x-request-id"]).not.toBe(first.headers["x-request-id"]);
  });

  it("is per API account: another account's request with the same key runs on its own", async () => {
    const key = uniqueKey("shared");
    const status = (name: string, groupId: number) => ({
      action: "create",
      group_id: groupId,
      doc: { status_name: name, color: "#00AA00" },
    });
    expect((await post(t.app, "statuses", status("Maple only", MAPLE.groupId), key)).status).toBe(200);
    const other = await post(t.app, "statuses", status("Other only", OTHER.groupId), key, otherHeaders);
    expect(other.status).toBe(200);
    expect(other.headers["idempotent-replayed"]).toBeUndefined();
  });

  it("reads ignore the header: nothing is stored and every read runs", async () => {
    const rows = await idempotencyRows();
    const read = { action: "get_info", group_id: MAPLE.groupId, clogin_id: MAPLE.miles };
    const key = uniqueKey("read");
    const first = await post(t.app, "users", read, key);
    const second = await post(t.app, "users", read, key);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers["idempotent-replayed"]).toBeUndefined();
    const list = await post(t.app, "projects", { action: "get_project_list", group_id: MAPLE.groupId, doc: {} }, key);
    expect(list.status).toBe(200);
    expect(await idempotencyRows()).toBe(rows);
  });

  it("users login ignores the header: its token is never stored, a retry gets a new one", async () => {
    const rows = await idempotencyRows();
    const login = { action: "login", group_id: MAPLE.groupId, clogin_id: MAPLE.miles };
    const key = uniqueKey("login");
    const first = await post(t.app, "users", login, key);
    const second = await post(t.app, "users", login, key);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers["idempotent-replayed"]).toBeUndefined();
    expect(second.body.user_token).not.toBe(first.body.user_token);
    expect(await idempotencyRows()).toBe(rows);
  });

  it("a key that is empty, too long or holds spaces is 400 IDEMPOTENCY_KEY_INVALID", async () => {
    for (const key of ["", "a b", "x".repeat(256), "é"]) {
      const res = await post(t.app, "users", newUser("never"), key);
      expectLegacyError(res, 400, "IDEMPOTENCY_KEY_INVALID", {
        msg: "Idempotency-Key must be 1 to 255 printable ASCII characters without spaces.",
      });
    }
  });

  it("an unauthenticated write with a key is refused as usual and stores nothing", async () => {
    const rows = await idempotencyRows();
    const res = await post(t.app, "users", newUser("nobody"), uniqueKey("anon"), { ...mapleHeaders, "Api-Token": "x" });
    expectLegacyError(res, 401, "UNAUTHENTICATED");
    expect(await idempotencyRows()).toBe(rows);
  });

  it("costs two statements on a first write (claim, answer) and two on a replay (claim, read; the account is cached since the warm-up)", async () => {
    const update = { action: "update", group_id: MAPLE.groupId, clogin_id: MAPLE.miles, doc: { first_name: "Miles" } };
    await post(t.app, "users", update, uniqueKey("warm-up")); // the first claim of the minute also purges
    const plain = await t.countStatements(() => post(t.app, "users", update));
    const key = uniqueKey("count");
    const first = await t.countStatements(() => post(t.app, "users", update, key));
    const replay = await t.countStatements(() => post(t.app, "users", update, key));
    expect(first.result.headers["idempotent-replayed"]).toBeUndefined();
    expect(replay.result.headers["idempotent-replayed"]).toBe("true");
    expect(first.statements - plain.statements).toBe(2);
    expect(replay.statements).toBe(2);
  });

  it("concurrent repeats through two instances run the write once and all get the first answer", async () => {
    const second = await secondInstance();
    const key = uniqueKey("concurrent");
    const before = await registrations();
    const body = newUser("ray");
    const answers = await Promise.all(
      [t.app, second, t.app, second, t.app].map((app) => post(app, "users", body, key)),
    );
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((res) => res.text)).size).toBe(1);
    expect(answers.filter((res) => res.headers["idempotent-replayed"] === "true")).toHaveLength(4);
    expect(await registrations()).toBe(before + 1);
  });

  it("a repeat waits for a first request still running elsewhere, then gets its answer", async () => {
    const key = uniqueKey("waits");
    const body = newUser("wait");
    const owner = {
      apiAccountId: Number(MAPLE.apiId),
      keyHash: createHash("sha256").update(key).digest("hex"),
    };
    // Another instance has claimed the key and is still working.
    const id = await claimIdempotencyKey(t.dataSource.manager, {
      ...owner,
      requestHash: createHash("sha256")
        .update(`POST /reg/api2/users\n${canonicalJson(body)}`)
        .digest("hex"),
      createdAt: new Date(),
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    const pending = post(t.app, "users", body, key).then((res) => res);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const stored = '{"success":true,"msg":"stored by the other instance"}';
    await storeIdempotentAnswer(t.dataSource.manager, id!, {
      status: 200,
      contentType: "application/json; charset=utf-8",
      body: stored,
    });
    const res = await pending;
    expect([res.status, res.text, res.headers["idempotent-replayed"]]).toEqual([200, stored, "true"]);
  });

  it("gives up after IDEMPOTENCY_WAIT_MS with 409 IDEMPOTENCY_KEY_IN_PROGRESS and Retry-After", async () => {
    const key = uniqueKey("stuck");
    const body = newUser("stuck");
    await claimIdempotencyKey(t.dataSource.manager, {
      apiAccountId: Number(MAPLE.apiId),
      keyHash: createHash("sha256").update(key).digest("hex"),
      requestHash: createHash("sha256")
        .update(`POST /reg/api2/users\n${canonicalJson(body)}`)
        .digest("hex"),
      createdAt: new Date(),
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    const started = Date.now();
    const res = await post(t.app, "users", body, key);
    expect(Date.now() - started).toBeGreaterThanOrEqual(WAIT_MS - 50);
    expectLegacyError(res, 409, "IDEMPOTENCY_KEY_IN_PROGRESS", { msg: /still being processed/ });
    expect(res.headers["retry-after"]).toBe("1");
  });

  it("after expiry (24 hours) the key is free again: the expired row is replaced", async () => {
    const key = uniqueKey("expired");
    const owner = { apiAccountId: Number(MAPLE.apiId), keyHash: createHash("sha256").update(key).digest("hex") };
    expect((await post(t.app, "users", newUser("expired1"), key)).status).toBe(200);
    const record = await findIdempotencyRecord(t.dataSource.manager, owner);
    expect(record!.expiresAt.getTime() - record!.createdAt.getTime()).toBe(24 * 3_600_000);
    await t.dataSource.manager.update(IdempotencyKey, { id: record!.id }, { expiresAt: new Date(Date.now() - 1000) });
    const fresh = await post(t.app, "users", newUser("expired2"), key);
    expect(fresh.status).toBe(200);
    expect(fresh.headers["idempotent-replayed"]).toBeUndefined();
    expect((await findIdempotencyRecord(t.dataSource.manager, owner))!.id).not.toBe(record!.id);
  });
});

describe("Idempotency-Key on GraphQL mutations", () => {
  const createStatus = `mutation Create($name: String!) {
    createStatus(input: { groupId: ${MAPLE.groupId}, name: $name, color: "#336699" }) { status { id name } }
  }`;
  const gql = (body: unknown, key: string) =>
    request(t.app)
      .post("/graphql")
      .set(mapleHeaders)
      .set("Idempotency-Key", key)
      .send(body as object);

  it("replays a mutation's answer and refuses the key with other variables (extensions.code)", async () => {
    const key = uniqueKey("graphql");
    const statuses = () => count("SELECT COUNT(*) AS n FROM status WHERE project_id = ?", [MAPLE.groupId]);
    const before = await statuses();
    const first = await gql({ query: createStatus, variables: { name: "Idempotent" } }, key);
    expect(first.status).toBe(200);
    expect(first.body.errors).toBeUndefined();
    const replay = await gql({ variables: { name: "Idempotent" }, query: createStatus }, key);
    expectReplayOf(replay, first);
    expect(await statuses()).toBe(before + 1);

    const reused = await gql({ query: createStatus, variables: { name: "Another" } }, key);
    expect(reused.status).toBe(409);
    expect(reused.body.errors[0].extensions.code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(await statuses()).toBe(before + 1);
  });

  it("concurrent repeats of a mutation through two instances create once and all get the first answer", async () => {
    const second = await secondInstance();
    const key = uniqueKey("graphql-concurrent");
    const statuses = () => count("SELECT COUNT(*) AS n FROM status WHERE project_id = ?", [MAPLE.groupId]);
    const before = await statuses();
    const body = { query: createStatus, variables: { name: "Concurrent" } };
    const answers = await Promise.all(
      [t.app, second, t.app, second].map((app) =>
        request(app).post("/graphql").set(mapleHeaders).set("Idempotency-Key", key).send(body),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200]);
    expect(answers[0].body.errors).toBeUndefined();
    expect(new Set(answers.map((res) => res.text)).size).toBe(1);
    expect(answers.filter((res) => res.headers["idempotent-replayed"] === "true")).toHaveLength(3);
    expect(await statuses()).toBe(before + 1);
  });

  it("queries ignore the header", async () => {
    const rows = await idempotencyRows();
    const key = uniqueKey("graphql-read");
    const query = { query: `{ project(groupId: ${MAPLE.groupId}) { groupId } }` };
    const first = await gql(query, key);
    const second = await gql(query, key);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers["idempotent-replayed"]).toBeUndefined();
    expect(await idempotencyRows()).toBe(rows);
  });
});
