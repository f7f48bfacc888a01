import http from "node:http";
import Redis from "ioredis";
import type { RowDataPacket } from "mysql2/promise";
import { DataSource } from "typeorm";
import { DEFAULT_REPLICAS } from "../../src/config/config";
import { buildDataSourceOptions } from "../../src/db/data-source-options";
import { gtidPositionCovers, parseGtidPosition } from "../../src/db/gtid";
import { memoryReadPositions } from "../../src/db/read-positions";
import { startReplicaSet, type ReplicaSet } from "../../src/db/replicas";
import { createRequestContext } from "../../src/domain/context";
import { processStateOf } from "../../src/domain/process-state";
import { loadFixture } from "../../src/fixtures/load-fixture";
import { MAPLE, mapleHeaders, OTHER, testFixture } from "../fixtures/test-fixture";
import { builtService } from "../support/service-build";
import { describeOnMysqlFamily } from "../support/database";
import { acquireMachineLock } from "../support/machine-lock";
import { startPrimaryAndReplica, type PrivateMariadb } from "../support/private-mariadb";
import { waitUntil } from "../support/processes";
import { postRest } from "../support/rest";
import { startTestApp } from "../support/test-app";
import { ServiceInstances, type ServiceInstance } from "../support/service-instances";
import { writeFigures } from "../support/figures";

// Issue 21, read replicas: two real service processes on a private GTID primary and replica, one
// Redis. Reads that take no lock go to the replica; a principal's write is read back at once
// through the other instance although the replica lags (read-your-writes: MASTER_GTID_WAIT, then
// the primary), while another account's reads stay on the replica; a replica killed -9 fails no
// request and rejoins the rotation once back. Which server served is counted on the servers
// themselves (Questions). SCALE_FULL=1 (npm run test:scale) runs longer loads. MariaDB run only.
jest.setTimeout(180_000);

const FULL = process.env.SCALE_FULL === "1";
const READS = FULL ? 400 : 40;
const LOAD_MS = FULL ? 6000 : 2000;
const HEADER = "regapi-consistency";
const KEY_PREFIX = `regapi-replica-test-${process.pid}-keys:`;
const otherHeaders = { "Api-Id": OTHER.apiId, "Api-User": OTHER.apiUser, "Api-Token": OTHER.apiToken };

const figures: Record<string, unknown> = {};
let lock: { release(): void; waitedMs: number } | undefined;
let primary: PrivateMariadb | undefined;
let replica: PrivateMariadb | undefined;
let instances: ServiceInstances | undefined;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  error?: string;
}

/** One POST on a fresh connection; never rejects (a failure is an answer with status 0). */
function post(
  instance: ServiceInstance,
  path: string,
  payload: unknown,
  headers: Record<string, string>,
): Promise<Answer> {
  const body = JSON.stringify(payload);
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: instance.port,
        method: "POST",
        path,
        agent: false,
        timeout: 15_000,
        headers: { ...headers, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
        res.on("end", () => {
          let parsed: Record<string, unknown>;
          try {
            parsed = JSON.parse(text) as Record<string, unknown>;
          } catch {
            parsed = { text };
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error("client timeout")));
    req.on("error", (error) => resolve({ status: 0, headers: {}, body: {}, error: error.message }));
    req.end(body);
  });
}

const rest = (
  instance: ServiceInstance,
  endpoint: string,
  payload: unknown,
  headers: Record<string, string> = mapleHeaders,
) => post(instance, `/reg/api2/${endpoint}/`, payload, headers);
const gql = (instance: ServiceInstance, query: string, headers: Record<string, string> = mapleHeaders) =>
  post(instance, "/graphql", { query }, headers);

const projectsOf = (instance: ServiceInstance, groupId: number, headers: Record<string, string>) =>
  rest(instance, "projects", { action: "get_project_list", group_id: groupId, doc: {} }, headers);
const milesOf = (instance: ServiceInstance, headers: Record<string, string> = mapleHeaders) =>
  rest(
    instance,
    "users",
    { action: "get_info", group_id: MAPLE.groupId, clogin_id: MAPLE.miles, doc: { first_name: true } },
    headers,
  );

async function questions(server: PrivateMariadb): Promise<number> {
  const [row] = await server.query<RowDataPacket[]>("SHOW GLOBAL STATUS LIKE 'Questions'");
  return Number(row.Value);
}

/** Statements each server received while `work` ran (the two SHOW STATUS of the count included). */
async function questionsDuring<T>(work: () => Promise<T>): Promise<{ result: T; primary: number; replica: number }> {
  const [p0, r0] = [await questions(primary!), await questions(replica!)];
  const result = await work();
  const [p1, r1] = [await questions(primary!), await questions(replica!)];
  return { result, primary: p1 - p0, replica: r1 - r0 };
}

async function readyz(instance: ServiceInstance): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${instance.url}/readyz`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const replicaStateOn = async (instance: ServiceInstance) =>
  ((await readyz(instance)).body.replicas as { state: string }[] | undefined)?.[0]?.state;

/** A metric's value on an instance (0 when absent). */
async function metric(instance: ServiceInstance, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${instance.url}/metrics`)).text();
  const line = text.split("\n").find((entry) => entry.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(" ").pop()) : 0;
}

describeOnMysqlFamily("reads on a GTID replica behind two service instances", () => {
  beforeAll(async () => {
    lock = await acquireMachineLock("scale-tests");
    figures.lockWaitedMs = lock.waitedMs;
    const setupStarted = Date.now();
    ({ primary, replica } = await startPrimaryAndReplica());
    await primary.query("CREATE DATABASE regapi");
    const setup = new DataSource(
      buildDataSourceOptions({
        kind: "mariadb",
        host: "127.0.0.1",
        port: primary.port,
        user: "root",
        password: "",
        database: "regapi",
      }),
    );
    await setup.initialize();
    try {
      await setup.runMigrations({ transaction: "each" });
      await loadFixture(createRequestContext(processStateOf(setup), "fixture"), testFixture());
    } finally {
      await setup.destroy();
    }
    expect(await replica.waitForGtid(await primary.gtidBinlogPos(), 20)).toBe(0);
    const started = Date.now();
    instances = await ServiceInstances.start(builtService().mainJs, 2, {
      env: {
        DATABASE_URL: primary.url("regapi"),
        DATABASE_REPLICA_URLS: replica.url("regapi"),
        REDIS_URL: "redis://127.0.0.1:6379",
        REDIS_KEY_PREFIX: KEY_PREFIX,
        REPLICA_WAIT_MS: "200",
        // A replica lagged with STOP SLAVE SQL_THREAD for a few seconds stays in the rotation.
        REPLICA_MAX_LAG_S: "30",
        REPLICA_CHECK_INTERVAL_MS: "250",
        DEMO: "false",
        DELIVERY_WORKER: "false",
        RATE_LIMIT_PER_MINUTE: "0",
        RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: "0",
      },
    });
    figures.instancesStartMs = Date.now() - started;
    figures.setupMs = Date.now() - setupStarted;
  }, 300_000);

  afterAll(async () => {
    await instances?.stopAll();
    await primary?.remove();
    await replica?.remove();
    lock?.release();
    writeFigures("replica-reads", { fullSize: FULL, ...figures });
  });

  it("/readyz is 200 and lists the replica in the rotation; lock-free reads of both transports run there", async () => {
    const [one, two] = instances!.instances;
    for (const instance of [one, two]) {
      const ready = await readyz(instance);
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({
        status: "ready",
        database: "up",
        replicas: [{ name: `127.0.0.1:${replica!.port}`, state: "up", lagSeconds: 0 }],
      });
    }
    // Warm the account caches, so the authentication reads (on the primary) are not counted below.
    await projectsOf(one, MAPLE.groupId, mapleHeaders);
    await projectsOf(two, MAPLE.groupId, mapleHeaders);
    const counted = await questionsDuring(async () => {
      const answers: Answer[] = [];
      for (let i = 0; i < READS; i++) {
        const instance = i % 2 === 0 ? one : two;
        answers.push(
          i % 4 < 2
            ? await projectsOf(instance, MAPLE.groupId, mapleHeaders)
            : await gql(
                instance,
                `{ projects { groupId name } users(groupId: ${MAPLE.groupId}, first: 2) { totalCount edges { node { cloginId } } } }`,
              ),
        );
      }
      return answers;
    });
    for (const answer of counted.result) expect([answer.status, answer.body.errors]).toEqual([200, undefined]);
    figures.readsOnReplica = { reads: READS, primaryQuestions: counted.primary, replicaQuestions: counted.replica };
    expect(counted.replica).toBeGreaterThanOrEqual(READS);
    // The primary sees only the instances' background checks (4 a second each), never the reads.
    expect(counted.primary).toBeLessThan(READS / 2);
    expect(await metric(one, "regapi_db_reads_total", `target="replica:127.0.0.1:${replica!.port}"`)).toBeGreaterThan(
      READS / 2 - 1,
    );
  });

  it("with the replica's SQL thread stopped, a write through instance 1 is read back at once through instance 2, while another account's reads stay on the replica", async () => {
    const [one, two] = instances!.instances;
    await replica!.stopApplying();
    try {
      const name = `Miles-${Date.now()}`;
      const update = { action: "update", group_id: MAPLE.groupId, clogin_id: MAPLE.miles, doc: { first_name: name } };
      // Warmed up (the account cached, the write path's first-use reads done): the statements of
      // the write below are its own, as in the in-process count further down.
      expect((await rest(one, "users", { ...update, doc: { first_name: "Warm" } })).status).toBe(200);
      const write = await rest(one, "users", update);
      expect(write.status).toBe(200);
      const position = write.headers[HEADER];
      expect(position).toMatch(/^0-1-\d+$/);
      // Kept where instance 2 finds it: in Redis, under the deployment's REDIS_KEY_PREFIX.
      const redis = new Redis("redis://127.0.0.1:6379");
      try {
        // (They expire by themselves, REPLICA_MAX_LAG_S + 300 s after the write.)
        expect((await redis.keys(`${KEY_PREFIX}ryw:*`)).length).toBeGreaterThan(0);
      } finally {
        redis.disconnect();
      }
      // The COMMIT reported the position itself (session tracking): as many statements as without replicas.
      const logged = await waitUntil("the write's log line", async () =>
        one.process!.lines.find((line) => line.requestId === write.headers["x-request-id"] && "sqlStatements" in line),
      );
      const plain = await startTestApp();
      try {
        await postRest(plain.app, "users", { ...update, doc: { first_name: "Warm" } });
        const counted = await plain.countStatements(() => postRest(plain.app, "users", update));
        expect(counted.result.status).toBe(200);
        figures.writeStatements = { withReplicas: logged.sqlStatements, without: counted.statements };
        expect(logged.sqlStatements).toBe(counted.statements);
      } finally {
        await plain.close();
      }
      // The replica has fetched the write but not applied it. (The feed sequencer's placing of the
      // write's event commits after it: the fetched position may be one transaction further.)
      const written = parseGtidPosition(String(position))!;
      await waitUntil("the replica to fetch the write", async () =>
        gtidPositionCovers(parseGtidPosition((await replica!.replicaStatus()).gtidIoPos), written),
      );
      expect(gtidPositionCovers(parseGtidPosition((await replica!.replicaStatus()).gtidSlavePos), written)).toBe(false);

      const fallbacksBefore = await metric(two, "regapi_replica_fallbacks_total", `reason="wait_timed_out"`);
      const startedAt = Date.now();
      const readBack = await milesOf(two);
      figures.readBackWhileLaggingMs = Date.now() - startedAt;
      expect(readBack.status).toBe(200);
      expect(readBack.body.doc).toEqual({ first_name: name });
      expect(readBack.headers[HEADER]).toBe(position);
      expect(await metric(two, "regapi_replica_fallbacks_total", `reason="wait_timed_out"`)).toBe(fallbacksBefore + 1);

      // Another account (another organization) has written nothing: its reads stay on the lagging replica.
      await projectsOf(two, OTHER.groupId, otherHeaders);
      const other = await questionsDuring(async () => {
        const answers: Answer[] = [];
        for (let i = 0; i < READS; i++) answers.push(await projectsOf(i % 2 ? one : two, OTHER.groupId, otherHeaders));
        return answers;
      });
      for (const answer of other.result) expect(answer.status).toBe(200);
      for (const answer of other.result) expect(answer.headers[HEADER]).toBeUndefined();
      figures.otherAccountWhileLagging = {
        reads: READS,
        primaryQuestions: other.primary,
        replicaQuestions: other.replica,
      };
      expect(other.replica).toBeGreaterThanOrEqual(READS);
      expect(other.primary).toBeLessThan(READS / 2);

      // The position handed back by the write asks for the same guarantee from any account.
      const asked = await projectsOf(two, OTHER.groupId, { ...otherHeaders, "Regapi-Consistency": String(position) });
      expect(asked.status).toBe(200);
      expect(asked.headers[HEADER]).toBe(position);
      expect(await metric(two, "regapi_replica_fallbacks_total", `reason="wait_timed_out"`)).toBe(fallbacksBefore + 2);
    } finally {
      await replica!.resumeApplying();
    }
    // Once applied, the writer's reads are back on the replica (nothing left to wait for there).
    expect(await replica!.waitForGtid(await primary!.gtidBinlogPos(), 10)).toBe(0);
    // Under load the stop may have outlasted REPLICA_MAX_LAG_S: the next check brings it back.
    await waitUntil("the replica back in instance 2's rotation", async () => (await replicaStateOn(two)) === "up");
    // Counted by the instance itself: the servers' Questions also count the health checks, and
    // whether a MASTER_GTID_WAIT precedes the read depends on when the last check saw the replica.
    const onReplica = `target="replica:127.0.0.1:${replica!.port}"`;
    const readsBefore = await metric(two, "regapi_db_reads_total", onReplica);
    const applied = await milesOf(two);
    expect(applied.status).toBe(200);
    expect(await metric(two, "regapi_db_reads_total", onReplica)).toBeGreaterThan(readsBefore);
  });

  it("a replica further behind than REPLICA_MAX_LAG_S leaves the rotation (lag counted while Seconds_Behind_Master is NULL) and returns once caught up", async () => {
    // An in-process replica set of its own with a 1 s limit, on the same servers.
    const database = {
      kind: "mariadb" as const,
      host: "127.0.0.1",
      port: primary!.port,
      user: "root",
      password: "",
      database: "regapi",
    };
    const source = new DataSource(buildDataSourceOptions(database));
    await source.initialize();
    const states: string[] = [];
    let started: ReplicaSet | undefined;
    try {
      const set = (started = await startReplicaSet(
        source,
        database,
        {
          ...DEFAULT_REPLICAS,
          urls: [replica!.url("regapi")],
          databases: [{ ...database, port: replica!.port }],
          maxLagSeconds: 1,
          checkIntervalMs: 200,
        },
        memoryReadPositions(60_000),
        (report) => states.push(report.state),
      ))!;
      const route = async () => {
        const routed = await set.route({ principalKeys: ["account:other"], requested: null }, false);
        await routed.lease?.release();
        return routed.lease?.target ?? "primary";
      };
      expect(set.report()[0]).toMatchObject({ state: "up", lagSeconds: 0 });
      expect(await route()).toBe(`replica:127.0.0.1:${replica!.port}`);
      await replica!.stopApplying();
      try {
        await primary!.query("CREATE TABLE regapi.lag_probe (id INT PRIMARY KEY)");
        const lagging = await waitUntil("the replica to leave the rotation as lagging", async () => {
          const [report] = set.report();
          return report.state === "lagging" && report;
        });
        expect(lagging.lagSeconds).toBeGreaterThan(1);
        expect(await route()).toBe("primary");
        expect(set.counters.fallbacks.get("no_replica_in_rotation")).toBeGreaterThanOrEqual(1);
      } finally {
        await replica!.resumeApplying();
      }
      await waitUntil("the replica back in the rotation", async () => set.report()[0].state === "up");
      expect(await route()).toBe(`replica:127.0.0.1:${replica!.port}`);
      expect(states).toEqual(["up", "lagging", "up"]);
    } finally {
      await started?.stop();
      await source.destroy();
      await primary!.query("DROP TABLE IF EXISTS regapi.lag_probe");
    }
  });

  // Statements in flight together when the replica dies (a query's root fields read at once) all
  // move to the primary: the first failure starts the move, the others wait for it and rerun.
  it("a replica killed -9 under load fails no request; reads fall back to the primary and return to the replica once it is back", async () => {
    const [one, two] = instances!.instances;
    const answers: Answer[] = [];
    let running = true;
    const load = (async () => {
      for (let i = 0; running; i++) {
        const instance = i % 2 === 0 ? one : two;
        const batch = await Promise.all([
          projectsOf(instance, MAPLE.groupId, mapleHeaders),
          projectsOf(instance, OTHER.groupId, otherHeaders),
          milesOf(instance),
          gql(instance, `{ projects { groupId name } users(groupId: ${MAPLE.groupId}, first: 2) { totalCount } }`),
        ]);
        answers.push(...batch);
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const killedAt = Date.now();
    await replica!.kill();
    await waitUntil("both instances to take the replica out of the rotation", async () => {
      const states = await Promise.all([replicaStateOn(one), replicaStateOn(two)]);
      return states.every((state) => state === "down");
    });
    figures.replicaOutOfRotationMs = Date.now() - killedAt;
    const ready = await readyz(one);
    expect(ready.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, LOAD_MS));
    const duringOutage = answers.length;
    const restartedAt = Date.now();
    await replica!.start();
    await waitUntil(
      "both instances to put the replica back in the rotation",
      async () => {
        const states = await Promise.all([replicaStateOn(one), replicaStateOn(two)]);
        return states.every((state) => state === "up");
      },
      { timeoutMs: 30_000 },
    );
    figures.replicaBackInRotationMs = Date.now() - restartedAt;
    running = false;
    await load;
    const failed = answers.filter((answer) => answer.status !== 200 || answer.body.errors !== undefined);
    figures.killLoad = { requests: answers.length, duringOutage, failed: failed.length };
    expect(failed.map((answer) => [answer.status, answer.error ?? answer.body])).toEqual([]);
    expect(await metric(one, "regapi_replica_fallbacks_total", `reason="no_replica_in_rotation"`)).toBeGreaterThan(0);

    const back = await questionsDuring(async () => {
      for (let i = 0; i < 10; i++)
        expect((await projectsOf(i % 2 ? one : two, OTHER.groupId, otherHeaders)).status).toBe(200);
    });
    expect(back.replica).toBeGreaterThanOrEqual(10);
  });
});
