import { testConfig } from "../support/test-config";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { RowDataPacket } from "mysql2/promise";
import type { DataSource } from "typeorm";
import type { RegapiApp } from "../../src/app";
import { startDeliveryWorker } from "../../src/delivery/delivery-worker";
import { createRequestContext, DEFAULT_DOMAIN_SETTINGS } from "../../src/domain/context";
import { processStateOf, type ProcessState } from "../../src/domain/process-state";
import { recordEvents, type DomainEvent } from "../../src/domain/events/record-event";
import { recountProjectCounters } from "../../src/domain/projects/project-counters";
import { inTransaction } from "../../src/domain/transaction";
import { createWebhookEndpoint } from "../../src/domain/webhooks/webhooks.service";
import { readProjectCounters } from "../../src/data/project-counters.data";
import { createApp } from "../../src/app";
import { loadFixture } from "../../src/fixtures/load-fixture";
import { createLogger } from "../../src/http/logger";
import { regapi } from "../cli/support/run-in-process";
import { startReceiver } from "../events/support/receiver";
import { FAST_DELIVERY } from "../events/support/worker-setup";
import { MAPLE, testFixture } from "../fixtures/test-fixture";
import { describeOnMysqlFamily } from "../support/database";
import { MAPLE_PRINCIPAL } from "../support/domain-database";
import { GaleraCluster } from "../support/galera-cluster";
import { createGaleraDatabase, openGaleraDataSource } from "../support/galera-service";
import { Haproxy } from "../support/haproxy";
import { acquireMachineLock } from "../support/machine-lock";
import { postRest } from "../support/rest";
import { writeFigures } from "../support/figures";
import { createFamily, familyMixBaseline, familyMixCall, familyMixProblems, writeApiOf } from "../support/family-mix";

// Issue 22 §2 and §4: the service unchanged on a private three-node Galera cluster. The migrations
// and the demo apply through HAProxy on nodes that refuse tables without a primary key and
// non-InnoDB tables (wsrep_mode); the 50-way writes to one family go through two nodes at once
// (multi-writer: Galera certification, not InnoDB locks, decides between them) and still apply
// exactly once, the counters equal to a recount, and so does the concurrency matrix's family mix
// (test/support/family-mix.ts) sent by closed-loop callers half through each node, its
// certification conflicts rerun and counted, never failed; delivery workers on two nodes send each event
// exactly once to a real HTTP receiver; a read on one node sees a write just committed on another
// (DATABASE_WSREP_SYNC_WAIT). SCALE_FULL=1 (npm run test:scale) runs the bursts larger. Figures
// printed at the end.
jest.setTimeout(180_000);

const FULL = process.env.SCALE_FULL === "1";
const CHILDREN = 10;
/** Each child gets this many add_product calls; the parent as many set_status calls as all children's adds. */
const ADDS_PER_CHILD = FULL ? 6 : 2;
const EVENTS = FULL ? 2000 : 400;
const READS = FULL ? 300 : 60;
/** The concurrency matrix's family mix (test/support/family-mix.ts): callers, and calls each. */
const MIX_CALLERS = 10;
const MIX_CALLS = FULL ? 30 : 6;
const ACCEPTED = 9;
const WITHDRAWN = 10;

const figures: Record<string, unknown> = {};
let lock: { release(): void; waitedMs: number } | undefined;
let cluster: GaleraCluster | undefined;
let haproxy: Haproxy | undefined;
const openDataSources: DataSource[] = [];
const apps: RegapiApp[] = [];

async function dataSourceOn(port: number, database: string, wsrepSyncWait: number | null = 1) {
  const dataSource = await openGaleraDataSource(port, database, { wsrepSyncWait });
  openDataSources.push(dataSource);
  return dataSource;
}

/** Each node's process state: its apps, workers and the test's own calls share rerun counts. */
const states = new Map<DataSource, ProcessState>();
function stateOf(dataSource: DataSource): ProcessState {
  if (!states.has(dataSource)) states.set(dataSource, processStateOf(dataSource));
  return states.get(dataSource)!;
}
const transactionRetryCountsOf = (dataSource: DataSource) => stateOf(dataSource).reruns.total;

async function appOn(dataSource: DataSource) {
  const app = await createApp({
    dataSource,
    shareWith: stateOf(dataSource),
    logger: createLogger("silent"),
    config: testConfig({ graphqlIntrospection: false }),
  });
  apps.push(app);
  return app;
}

const count = async (dataSource: DataSource, sql: string, parameters: unknown[] = []) =>
  Number(((await dataSource.query(sql, parameters)) as { n: number | string }[])[0].n);

// Statements Galera refuses or does not replicate: user-level locks, table locks, tables outside
// InnoDB, XA. Checked over every source file, as text (SQL lives in src/data and src/migrations).
const GALERA_UNSAFE =
  /\bGET_LOCK\s*\(|\bRELEASE_LOCK\s*\(|\bLOCK\s+TABLES?\b|\bENGINE\s*=\s*(?!InnoDB\b)\w+|\bXA\s+START\b/i;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

describe("the service's SQL on Galera", () => {
  it("uses no statement Galera refuses or does not replicate (GET_LOCK, LOCK TABLES, non-InnoDB tables, XA)", () => {
    const files = sourceFiles(join(__dirname, "../../src"));
    expect(files.length).toBeGreaterThan(50);
    const offending = files.flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .map((line, i) => ({ line: line.trim(), at: `${file}:${i + 1}` }))
        .filter(({ line }) => GALERA_UNSAFE.test(line)),
    );
    expect(offending).toEqual([]);
    // The pattern itself finds what it is for.
    expect(
      ["SELECT GET_LOCK('x', 1)", "LOCK TABLES t WRITE", "ENGINE=MyISAM"].filter((s) => GALERA_UNSAFE.test(s)),
    ).toHaveLength(3);
    expect(GALERA_UNSAFE.test("ENGINE=InnoDB")).toBe(false);
  });
});

describeOnMysqlFamily("the service on a three-node Galera cluster", () => {
  let haproxyDs: DataSource;
  let node1: DataSource;
  let node2: DataSource;

  beforeAll(async () => {
    lock = await acquireMachineLock("scale-tests");
    figures.lockWaitedMs = lock.waitedMs;
    const started = Date.now();
    // Nodes that refuse what Galera cannot replicate safely, so the migrations prove the schema.
    cluster = await GaleraCluster.start({ size: 3, args: ["--wsrep-mode=REQUIRED_PRIMARY_KEY,STRICT_REPLICATION"] });
    haproxy = await Haproxy.galera(cluster.nodes.map((node) => ({ name: node.name, port: node.port })));
    for (const node of cluster.nodes) await haproxy.waitForServer("galera", node.name, "UP");
    figures.clusterStartMs = Date.now() - started;

    await createGaleraDatabase(cluster.node(1), "regapi");
    haproxyDs = await dataSourceOn(haproxy.port, "regapi");
    await haproxyDs.runMigrations({ transaction: "each" });
    await loadFixture(createRequestContext(stateOf(haproxyDs), "fixture"), testFixture());
    node1 = await dataSourceOn(cluster.node(1).port, "regapi");
    node2 = await dataSourceOn(cluster.node(2).port, "regapi");
  }, 300_000);

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
    await Promise.all(openDataSources.map((dataSource) => dataSource.destroy().catch(() => undefined)));
    await haproxy?.stop();
    await cluster?.remove();
    lock?.release();
    writeFigures("galera-service", { fullSize: FULL, ...figures });
  });

  it("regapi migrate and regapi demo apply through HAProxy on nodes that require primary keys and InnoDB", async () => {
    const node3 = cluster!.node(3);
    const [{ mode }] = await node3.query<RowDataPacket[]>("SELECT @@wsrep_mode AS mode");
    expect(String(mode).split(",").sort()).toEqual(["REQUIRED_PRIMARY_KEY", "STRICT_REPLICATION"]);
    await createGaleraDatabase(cluster!.node(1), "regapi_demo");
    const demo = await dataSourceOn(haproxy!.port, "regapi_demo");
    const migrate = await regapi(["migrate"], demo);
    expect(migrate).toMatchObject({ code: 0, stderr: "" });
    const loaded = await regapi(["demo"], demo);
    expect(loaded).toMatchObject({ code: 0, stderr: "" });
    expect(loaded.stdout).toContain("demo data loaded");

    // Read on another node than the one HAProxy wrote through: everything replicated.
    const tables = await node3.query<RowDataPacket[]>(
      `SET STATEMENT wsrep_sync_wait=1 FOR
       SELECT t.TABLE_NAME AS name, t.ENGINE AS engine,
              (SELECT COUNT(*) FROM information_schema.TABLE_CONSTRAINTS c
                WHERE c.TABLE_SCHEMA = t.TABLE_SCHEMA AND c.TABLE_NAME = t.TABLE_NAME
                  AND c.CONSTRAINT_TYPE = 'PRIMARY KEY') AS primary_keys
         FROM information_schema.TABLES t WHERE t.TABLE_SCHEMA = 'regapi_demo' AND t.TABLE_TYPE = 'BASE TABLE'`,
    );
    expect(tables.length).toBeGreaterThan(20);
    expect(tables.filter((table) => table.engine !== "InnoDB" || Number(table.primary_keys) !== 1)).toEqual([]);
    figures.tables = tables.length;
    const registrations = await node3.query<RowDataPacket[]>(
      "SET STATEMENT wsrep_sync_wait=1 FOR SELECT COUNT(*) AS n FROM regapi_demo.registration",
    );
    expect(Number(registrations[0].n)).toBeGreaterThan(0);
  });

  it("DATABASE_WSREP_SYNC_WAIT is set on every pooled session; a read on node 2 sees each write just made through node 1", async () => {
    const sessions = await Promise.all(
      Array.from({ length: 5 }, () => node2.query("SELECT @@session.wsrep_sync_wait AS v, SLEEP(0.05)")),
    );
    expect(sessions.map((rows: { v: number }[]) => Number(rows[0].v))).toEqual([1, 1, 1, 1, 1]);
    const unsynced = await dataSourceOn(cluster!.node(2).port, "regapi", null);
    expect(Number((await unsynced.query("SELECT @@session.wsrep_sync_wait AS v"))[0].v)).toBe(0);

    const writer = await appOn(node1);
    const personId = MAPLE.bill;
    let stale = 0;
    let staleWithout = 0;
    for (let i = 0; i < READS; i++) {
      const res = await postRest(writer.app, "users", {
        action: "update",
        group_id: MAPLE.groupId,
        clogin_id: personId,
        doc: { last_name: `Galera${i}` },
      });
      expect([res.status, res.body.error_code]).toEqual([200, undefined]);
      // Without the setting first, so its read gets no help from the synced one.
      const [without] = await unsynced.query("SELECT last_name FROM person WHERE id = ?", [personId]);
      if (without.last_name !== `Galera${i}`) staleWithout++;
      const [row] = await node2.query("SELECT last_name FROM person WHERE id = ?", [personId]);
      if (row.last_name !== `Galera${i}`) stale++;
    }
    expect(stale).toBe(0);
    figures.readsAfterWrite = { reads: READS, staleWithSyncWait: stale, staleWithoutSyncWait: staleWithout };
  });

  it(`${CHILDREN * ADDS_PER_CHILD * 2 + CHILDREN} writes to one family through two nodes at once: all 200, each applied once, events once`, async () => {
    const [a, b] = [await appOn(node1), await appOn(node2)];
    const post = (app: RegapiApp, body: Record<string, unknown>) =>
      postRest(app.app, "users", { group_id: MAPLE.groupId, ...body });
    const parent = await post(a, {
      action: "create",
      doc: { main_email: "family@galera.test", first_name: "Parent", last_name: "Galera" },
    });
    expect(parent.status).toBe(200);
    const parentId = Number(parent.body.user_info.clogin_id);
    expect((await post(a, { action: "set_status", clogin_id: parentId, status_id: ACCEPTED })).status).toBe(200);
    const children: number[] = [];
    for (let i = 0; i < CHILDREN; i++) {
      // No first_name: form 301 stays open, so marking it complete fires its triggers below.
      const child = await post(i % 2 ? b : a, {
        action: "create_child",
        connected_to: parentId,
        doc: { last_name: `Kid${i}` },
      });
      expect([child.status, child.body.error_code]).toEqual([200, undefined]);
      children.push(Number(child.body.user_info.clogin_id));
    }
    const lastEventBefore = await count(node1, "SELECT COALESCE(MAX(id), 0) AS n FROM event");
    const retriesBefore = [node1, node2].map((ds) => ({ ...transactionRetryCountsOf(ds) }));

    const calls: [RegapiApp, Record<string, unknown>][] = [];
    children.forEach((child, i) => {
      for (let k = 0; k < ADDS_PER_CHILD; k++)
        calls.push([
          (i + k) % 2 ? a : b,
          { action: "add_product", clogin_id: child, product_list: [{ p_id: 78, q: 1 }] },
        ]);
      calls.push([i % 2 ? b : a, { action: "update", clogin_id: child, mark_forms_complete: [301] }]);
    });
    for (let k = 0; k < CHILDREN * ADDS_PER_CHILD; k++)
      calls.push([
        k % 2 ? a : b,
        { action: "set_status", clogin_id: parentId, status_id: k % 2 ? ACCEPTED : WITHDRAWN },
      ]);
    const started = Date.now();
    const answers = await Promise.all(calls.map(([app, body]) => post(app, body)));
    figures.familyWrites = { calls: calls.length, ms: Date.now() - started };
    expect(answers.map((res) => [res.status, res.body.error_code, res.body.msg])).toEqual(
      answers.map(() => [200, undefined, expect.any(String)]),
    );
    const retries = [node1, node2].map((ds, i) => {
      const now = transactionRetryCountsOf(ds);
      return {
        deadlock: now.deadlock - retriesBefore[i].deadlock,
        lockWaitTimeout: now.lock_wait_timeout - retriesBefore[i].lock_wait_timeout,
        exhausted: now.exhausted - retriesBefore[i].exhausted,
      };
    });
    (figures.familyWrites as Record<string, unknown>).reruns = retries;

    // Exactly once, read on a third node.
    const check = await dataSourceOn(cluster!.node(3).port, "regapi");
    const uids = `SELECT uid FROM registration WHERE project_id = ${MAPLE.groupId} AND person_id IN (${children.join(",")})`;
    expect(
      await count(check, `SELECT COUNT(*) AS n FROM cart_line WHERE product_id = 78 AND registration_id IN (${uids})`),
    ).toBe(CHILDREN * ADDS_PER_CHILD);
    expect(
      await count(check, `SELECT COUNT(*) AS n FROM cart_line WHERE product_id = 77 AND registration_id IN (${uids})`),
    ).toBe(CHILDREN);
    expect(await count(check, `SELECT COUNT(*) AS n FROM trigger_firing WHERE registration_id IN (${uids})`)).toBe(
      // Form 301's add_product and add_form triggers; its email trigger skips a child without an address.
      CHILDREN * 2,
    );
    const events = (type: string) =>
      count(check, "SELECT COUNT(*) AS n FROM event WHERE type = ? AND id > ?", [type, lastEventBefore]);
    expect(await events("cart.product_added")).toBe(CHILDREN * ADDS_PER_CHILD);
    // The parent's status calls alternate: the changes that happened alternate too, so the events
    // to each status differ by at most one, and the last change decides where the parent is now.
    const statusEvents: { data: string }[] = await check.query(
      "SELECT data FROM event WHERE type = 'user.status_changed' AND id > ?",
      [lastEventBefore],
    );
    const to = (status: number) =>
      statusEvents.filter((event) => (JSON.parse(event.data) as { status_id: number }).status_id === status).length;
    expect(to(ACCEPTED) + to(WITHDRAWN)).toBe(statusEvents.length);
    expect(statusEvents.length).toBeGreaterThan(0);
    expect(to(WITHDRAWN) - to(ACCEPTED)).toBeGreaterThanOrEqual(0);
    expect(to(WITHDRAWN) - to(ACCEPTED)).toBeLessThanOrEqual(1);
    const [{ status_id: finalStatus }] = await check.query(
      "SELECT status_id FROM registration WHERE project_id = ? AND person_id = ?",
      [MAPLE.groupId, parentId],
    );
    expect(Number(finalStatus)).toBe(to(WITHDRAWN) > to(ACCEPTED) ? WITHDRAWN : ACCEPTED);
    (figures.familyWrites as Record<string, unknown>).statusChanges = statusEvents.length;

    // A family's row lock is its own node's only, but every write to the family also writes the
    // parent's row (its updated_at, src/domain/unit-of-work.ts): two such writes through two
    // nodes conflict at certification and one reruns, so the counters equal a recount.
    const kept = (await readProjectCounters(check.manager, { projectId: MAPLE.groupId })).get(MAPLE.groupId)!;
    await recountProjectCounters(createRequestContext(stateOf(haproxyDs), "recount", MAPLE_PRINCIPAL), MAPLE.groupId);
    const recounted = (await readProjectCounters(check.manager, { projectId: MAPLE.groupId })).get(MAPLE.groupId)!;
    expect(kept).toEqual(recounted);
  });

  it(`the concurrency matrix's family mix, ${MIX_CALLERS} closed-loop callers half through each node: all 200, each write once, counters = recount`, async () => {
    const apps = [await appOn(node1), await appOn(node2)];
    const apis = apps.map((app) => writeApiOf(app.app));
    const family = await createFamily(apis[0], "mix@galera.test");
    const check = await dataSourceOn(cluster!.node(3).port, "regapi");
    const baseline = await familyMixBaseline(check, family);
    const before = [node1, node2].map((ds) => ({ ...transactionRetryCountsOf(ds) }));
    const started = Date.now();
    const answers: { caller: number; n: number; status: number; body: Record<string, unknown> }[] = [];
    await Promise.all(
      Array.from({ length: MIX_CALLERS }, async (_, caller) => {
        // Each of the five roles has a caller on each node.
        const api = apis[Math.floor(caller / 5) % 2];
        for (let n = 0; n < MIX_CALLS; n += 1)
          answers.push({ ...(await familyMixCall(api, family, caller, n)), caller, n });
      }),
    );
    const reruns = [node1, node2].map((ds, i) => {
      const now = transactionRetryCountsOf(ds);
      return {
        deadlock: now.deadlock - before[i].deadlock,
        lockWaitTimeout: now.lock_wait_timeout - before[i].lock_wait_timeout,
        connectionLost: now.connection_lost - before[i].connection_lost,
        exhausted: now.exhausted - before[i].exhausted,
      };
    });
    const rerun = reruns.reduce((sum, r) => sum + r.deadlock + r.lockWaitTimeout + r.connectionLost, 0);
    figures.familyMix = {
      requests: answers.length,
      ms: Date.now() - started,
      reruns,
      rerunsPer1000Requests: Math.round((rerun * 1000) / answers.length),
    };
    // Certification conflicts between the nodes are reruns, never a failed request.
    expect(
      answers.filter((a) => a.status !== 200).map((a) => [a.status, JSON.stringify(a.body).slice(0, 300)]),
    ).toEqual([]);
    expect(reruns.map((r) => r.exhausted)).toEqual([0, 0]);
    // Read on the third node, which neither wrote through.
    expect(await familyMixProblems(check, family, baseline, answers)).toEqual([]);
    const kept = (await readProjectCounters(check.manager, { projectId: MAPLE.groupId })).get(MAPLE.groupId)!;
    await recountProjectCounters(createRequestContext(stateOf(haproxyDs), "recount", MAPLE_PRINCIPAL), MAPLE.groupId);
    const recounted = (await readProjectCounters(check.manager, { projectId: MAPLE.groupId })).get(MAPLE.groupId)!;
    expect(kept).toEqual(recounted);
  });

  it(`delivery workers writing through two different nodes send ${EVENTS} events exactly once to a real receiver`, async () => {
    const receiver = await startReceiver();
    const logger = createLogger("silent");
    try {
      const ctx = createRequestContext(stateOf(haproxyDs), "test", MAPLE_PRINCIPAL, {
        settings: { ...DEFAULT_DOMAIN_SETTINGS, webhookAllowPrivate: true },
      });
      await createWebhookEndpoint(ctx, { url: receiver.url(), events: ["user.updated"] });
      const events: DomainEvent[] = Array.from({ length: EVENTS }, (_, i) => ({
        type: "user.updated",
        groupId: MAPLE.groupId,
        data: { clogin_id: MAPLE.miles, n: i },
      }));
      await inTransaction(ctx, "test.record_events", async ({ em }) => recordEvents(em, events));
      // The updates of the earlier tests left user.updated events of their own, not yet fanned out.
      const expected = await count(
        node1,
        "SELECT COUNT(*) AS n FROM event WHERE type = 'user.updated' AND dispatched_at IS NULL",
      );
      expect(expected).toBeGreaterThanOrEqual(EVENTS);
      const retriesBefore = [node1, node2].map((ds) => transactionRetryCountsOf(ds).deadlock);
      const started = Date.now();
      const workers = [node1, node2].map((dataSource) =>
        startDeliveryWorker({ state: stateOf(dataSource), logger, config: FAST_DELIVERY, batchSize: 25 }),
      );
      await receiver.waitFor(expected, 90_000);
      // Anything sent twice would arrive after the count was reached: give it a moment.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await Promise.all(workers.map((worker) => worker.stop()));
      const ids = receiver.received.map((delivery) => String(delivery.headers["regapi-event-id"]));
      expect(ids).toHaveLength(expected);
      expect(new Set(ids).size).toBe(expected);
      const numbers = receiver.received
        .map((delivery) => (JSON.parse(delivery.body) as { data: { n?: number } }).data.n)
        .filter((n): n is number => n !== undefined);
      expect(new Set(numbers).size).toBe(EVENTS);
      const shares = workers.map((worker) => worker.stats.delivered);
      expect(shares[0] + shares[1]).toBe(expected);
      expect(Math.min(...shares)).toBeGreaterThan(0);
      expect(
        await count(
          node2,
          "SELECT COUNT(*) AS n FROM webhook_delivery WHERE state = 'delivered' AND attempt_count = 1",
        ),
      ).toBe(expected);
      figures.delivery = {
        events: expected,
        ms: Date.now() - started,
        split: shares,
        certificationReruns: [node1, node2].map((ds, i) => transactionRetryCountsOf(ds).deadlock - retriesBefore[i]),
      };
    } finally {
      await receiver.close();
    }
  });
});
