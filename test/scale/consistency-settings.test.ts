import { randomUUID } from "node:crypto";
import Redis from "ioredis";
import { closeRedis, openRedis } from "../../src/shared-state/redis";
import request from "supertest";
import { ConfigError, loadConfig } from "../../src/config/config";
import { formatGtidPosition, parseGtidPosition, type GtidPosition } from "../../src/db/gtid";
import { memoryReadPositions, redisReadPositions } from "../../src/db/read-positions";
import { replicasUnsupportedBy } from "../../src/db/read-replicas-setup";
import { CONSISTENCY_HEADER } from "../../src/http/consistency";
import { MAPLE, mapleHeaders } from "../fixtures/test-fixture";
import { watchTables } from "../support/tables";
import { startTestApp, type TestApp } from "../support/test-app";

// Issue 21: the replica settings, the write positions and the Regapi-Consistency header, on
// the test database of the run (SQLite or MariaDB) with no replica configured; the replicas
// themselves are exercised in replica-reads.test.ts.

const PRIMARY = "mariadb://app:pw@db1.internal:3306/regapi";

function refusal(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`accepted: ${JSON.stringify(env)}`);
}

const position = (text: string): GtidPosition => {
  const parsed = parseGtidPosition(text);
  if (!parsed) throw new Error(`not a position: ${text}`);
  return parsed;
};

describe("replica settings", () => {
  it("none by default: every read stays on DATABASE_URL; waits 200 ms, 10 s of lag, checked each second", () => {
    expect(loadConfig({ DATABASE_URL: PRIMARY }).replicas).toEqual({
      urls: [],
      databases: [],
      waitMs: 200,
      maxLagSeconds: 10,
      checkIntervalMs: 1000,
    });
    expect(loadConfig({ DATABASE_URL: PRIMARY, DATABASE_REPLICA_URLS: " , " }).replicas.databases).toEqual([]);
  });

  it("DATABASE_REPLICA_URLS is a comma-separated list of mysql:// or mariadb:// URLs, each parsed like DATABASE_URL", () => {
    const config = loadConfig({
      DATABASE_URL: PRIMARY,
      DATABASE_REPLICA_URLS: "mariadb://reader:s%40cret@db2.internal/regapi, mysql://db3.internal:3307/regapi",
      REPLICA_WAIT_MS: "50",
      REPLICA_MAX_LAG_S: "3",
      REPLICA_CHECK_INTERVAL_MS: "250",
    });
    expect(config.replicas).toEqual({
      urls: ["mariadb://reader:s%40cret@db2.internal/regapi", "mysql://db3.internal:3307/regapi"],
      databases: [
        { kind: "mariadb", host: "db2.internal", port: 3306, user: "reader", password: "s@cret", database: "regapi" },
        { kind: "mysql", host: "db3.internal", port: 3307, user: "root", password: "", database: "regapi" },
      ],
      waitMs: 50,
      maxLagSeconds: 3,
      checkIntervalMs: 250,
    });
  });

  it("refuses replicas of SQLite, a bad entry (naming it, password hidden), the primary's own address and a duplicate", () => {
    expect(refusal({ DATABASE_REPLICA_URLS: "mariadb://db2/regapi" }).message).toBe(
      "DATABASE_REPLICA_URLS: needs a mysql:// or mariadb:// DATABASE_URL; SQLite has no replicas",
    );
    const badScheme = refusal({
      DATABASE_URL: PRIMARY,
      DATABASE_REPLICA_URLS: "mariadb://db2/regapi,postgres://db3/x",
    });
    expect(badScheme.message).toMatch(/^DATABASE_REPLICA_URLS entry 2: unsupported scheme "postgres:"/);
    const notUrl = refusal({ DATABASE_URL: PRIMARY, DATABASE_REPLICA_URLS: "db2:secret" });
    expect(notUrl.message).toMatch(/^DATABASE_REPLICA_URLS entry 1: /);
    expect(refusal({ DATABASE_URL: PRIMARY, DATABASE_REPLICA_URLS: "sqlite:replica.db" }).message).toBe(
      "DATABASE_REPLICA_URLS: entry 1: a replica is a mysql:// or mariadb:// URL, not SQLite",
    );
    expect(
      refusal({ DATABASE_URL: PRIMARY, DATABASE_REPLICA_URLS: "mariadb://reader:pw@db1.internal:3306/regapi" }).message,
    ).toBe("DATABASE_REPLICA_URLS: entry 1 (db1.internal:3306) is the primary's address (DATABASE_URL)");
    expect(
      refusal({ DATABASE_URL: PRIMARY, DATABASE_REPLICA_URLS: "mariadb://db2:3306/regapi,mariadb://db2/regapi" })
        .message,
    ).toBe("DATABASE_REPLICA_URLS: entry 2 (db2:3306) is listed twice");
  });

  it.each([
    ["REPLICA_WAIT_MS", "10001", "0 to 10000"],
    ["REPLICA_WAIT_MS", "0.2", "0 to 10000"],
    ["REPLICA_MAX_LAG_S", "0", "1 to 86400"],
    ["REPLICA_CHECK_INTERVAL_MS", "50", "100 to 60000"],
  ])("refuses %s=%s, naming the range", (variable, value, range) => {
    expect(refusal({ DATABASE_URL: PRIMARY, [variable]: value }).message).toBe(
      `${variable}: "${value}" is not an integer from ${range}`,
    );
  });
});

describe("which primaries can have replicas", () => {
  it("MariaDB only: a MySQL primary is refused at start with a message naming the setting and the server", async () => {
    expect(replicasUnsupportedBy("10.11.19-MariaDB-0+deb12u1")).toBeNull();
    expect(replicasUnsupportedBy("11.4.2-MariaDB-log")).toBeNull();
    expect(replicasUnsupportedBy("8.0.36")).toBe(
      "DATABASE_REPLICA_URLS needs a MariaDB primary with MariaDB GTID replicas; the primary is 8.0.36, " +
        "not MariaDB (MySQL replicas are not supported: unset DATABASE_REPLICA_URLS to read on the primary)",
    );
    expect(replicasUnsupportedBy("8.4.0-commercial")).toContain("the primary is 8.4.0-commercial, not MariaDB");
  });
});

describe("write positions per principal", () => {
  it("in process: the later position wins whatever the order of the notes; entries expire", async () => {
    let now = 1000;
    const store = memoryReadPositions(5000, () => now);
    await store.note("account:1", position("0-1-20"));
    await store.note("account:1", position("0-1-12"));
    await store.note("registrant:7", position("0-1-25"));
    expect(formatGtidPosition((await store.get(["account:1"]))!)).toBe("0-1-20");
    expect(formatGtidPosition((await store.get(["account:1", "registrant:7"]))!)).toBe("0-1-25");
    expect(await store.get(["account:2"])).toBeNull();
    now += 5001;
    expect(await store.get(["account:1"])).toBeNull();
  });

  it("in Redis: two instances' stores see each other's notes, the later position wins, keys expire", async () => {
    const prefix = `regapi-test:ryw:${randomUUID()}:`;
    // Two instances: each its own connection, as connectRedis opens one per process.
    const connections = [openRedis("redis://127.0.0.1:6379"), openRedis("redis://127.0.0.1:6379")];
    const errors: Error[] = [];
    for (const connection of connections) connection.on("error", (error: Error) => errors.push(error));
    const first = redisReadPositions(connections[0], prefix, 60_000);
    const second = redisReadPositions(connections[1], prefix, 60_000);
    const raw = new Redis("redis://127.0.0.1:6379");
    try {
      await first.note("account:1", position("0-1-99,1-3-4"));
      await second.note("account:1", position("0-1-100"));
      await second.note("account:1", position("0-1-98,1-3-2"));
      expect(formatGtidPosition((await first.get(["account:1"]))!)).toBe("0-1-100,1-3-4");
      expect(await second.get(["account:404"])).toBeNull();
      const ttl = await raw.pttl(`${prefix}account:1`);
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
      expect(errors).toEqual([]);
    } finally {
      await raw.del(`${prefix}account:1`);
      await raw.quit();
      await Promise.all(connections.map(closeRedis));
    }
  });
});

describe(`the ${CONSISTENCY_HEADER} header without replicas`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const MESSAGE = `${CONSISTENCY_HEADER} header: "tomorrow" is not a replication position; send back the value of an earlier answer's ${CONSISTENCY_HEADER} header (MariaDB GTIDs domain-server-sequence, comma-separated, e.g. 0-1-42), or leave the header out.`;

  it("a malformed value is refused 400 CONSISTENCY_INVALID before anything runs, with one message on REST and GraphQL", async () => {
    const watch = await watchTables(t.dataSource);
    const rest = await request(t.app)
      .post("/reg/api2/statuses/")
      .set(mapleHeaders)
      .set(CONSISTENCY_HEADER, "tomorrow")
      .send({ action: "create", group_id: MAPLE.groupId, doc: { status_name: "Header probe", color: "#000000" } });
    expect(rest.status).toBe(400);
    expect(rest.body).toMatchObject({ success: false, error_code: "CONSISTENCY_INVALID", msg: MESSAGE });
    const graphql = await request(t.app)
      .post("/graphql")
      .set(mapleHeaders)
      .set(CONSISTENCY_HEADER, "tomorrow")
      .set("Content-Type", "application/json")
      .send({
        query: `mutation ($input: CreateStatusInput!) { createStatus(input: $input) { status { statusId } } }`,
        variables: { input: { groupId: MAPLE.groupId, name: "Header probe", color: "#000000", isExcluded: false } },
      });
    expect(graphql.status).toBe(400);
    expect(graphql.body).toEqual({ errors: [{ message: MESSAGE, extensions: { code: "CONSISTENCY_INVALID" } }] });
    await watch.expectNothingWritten();
  });

  it("a long value is quoted cut short; an empty one counts as absent", async () => {
    const long = await request(t.app)
      .post("/reg/api2/projects/")
      .set(mapleHeaders)
      .set(CONSISTENCY_HEADER, "0-1-".padEnd(5000, "9"))
      .send({ action: "get_project_list", group_id: MAPLE.groupId, doc: {} });
    expect(long.status).toBe(400);
    expect(long.body.msg.length).toBeLessThan(400);
    const empty = await request(t.app)
      .post("/reg/api2/projects/")
      .set(mapleHeaders)
      .set(CONSISTENCY_HEADER, "")
      .send({ action: "get_project_list", group_id: MAPLE.groupId, doc: {} });
    expect(empty.status).toBe(200);
  });

  it("a valid position is accepted on both transports and answered back (the primary has it); none sent, none answered", async () => {
    const read = await request(t.app)
      .post("/reg/api2/projects/")
      .set(mapleHeaders)
      .set(CONSISTENCY_HEADER, "0-1-42")
      .send({ action: "get_project_list", group_id: MAPLE.groupId, doc: {} });
    expect(read.status).toBe(200);
    expect(read.body.success).toBe(true);
    expect(read.headers[CONSISTENCY_HEADER.toLowerCase()]).toBe("0-1-42");
    const graphql = await request(t.app)
      .post("/graphql")
      .set(mapleHeaders)
      .set(CONSISTENCY_HEADER, "0-1-42,1-2-3")
      .set("Content-Type", "application/json")
      .send({ query: `{ users(groupId: ${MAPLE.groupId}, first: 1) { totalCount } }` });
    expect(graphql.status).toBe(200);
    expect(graphql.body.errors).toBeUndefined();
    expect(graphql.headers[CONSISTENCY_HEADER.toLowerCase()]).toBe("0-1-42,1-2-3");
    const plain = await request(t.app)
      .post("/reg/api2/projects/")
      .set(mapleHeaders)
      .send({ action: "get_project_list", group_id: MAPLE.groupId, doc: {} });
    expect(plain.headers[CONSISTENCY_HEADER.toLowerCase()]).toBeUndefined();
  });
});
