import "reflect-metadata";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { createConnection, type RowDataPacket } from "mysql2/promise";
import { DataSource } from "typeorm";
import { createApp } from "../src/app";
import { startRuntime } from "../src/runtime/runtime";
import { configWith, DEFAULT_REPLICAS, RATE_LIMITS_OFF, type Config } from "../src/config/config";
import { seedRegistrants } from "../src/cli/seed/seed-registrants";
import { buildDataSourceOptions } from "../src/db/data-source-options";
import { createRequestContext } from "../src/domain/context";
import { processStateOf } from "../src/domain/process-state";
import { DEMO_FIXTURE } from "../src/fixtures/demo";
import { loadFixture } from "../src/fixtures/load-fixture";
import { createLogger } from "../src/http/logger";
import { BENCH_GROUP_ID, BENCH_HEADERS, BENCH_SCENARIOS } from "./scenarios";

// Read replicas (issue 21): the benchmark reads through an app whose reads stay on the primary
// and through one whose lock-free reads go to a GTID replica, side by side, on the same data;
// then the read-your-writes waits of a writer that reads its own writes back at once while other
// writes go on. A private primary and replica are installed in a temporary folder (mariadbd on
// free loopback ports, stopped by pid at the end); the shared server is not touched. Both run on
// this machine, so the replica path shows its overhead here, not the capacity a second server
// adds. Environment: BENCH_SECONDS (5 per row and side), BENCH_CONNECTIONS (10), BENCH_USERS
// (2000 seeded registrants), BENCH_RYW_CLIENTS (4 writer-readers, each renaming a registrant of its
// own), BENCH_RYW_PAIRS (100 each).

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const USERS = Number(process.env.BENCH_USERS ?? 2000);
const RYW_CLIENTS = Number(process.env.BENCH_RYW_CLIENTS ?? 4);
const RYW_PAIRS = Number(process.env.BENCH_RYW_PAIRS ?? 100);

const READ_SCENARIOS = BENCH_SCENARIOS.filter((scenario) => !/update/.test(scenario.name));

// --- private servers -------------------------------------------------------------------------

interface MariadbServer {
  port: number;
  child: ChildProcess;
}

const account = () => {
  if (userInfo().uid !== 0) return { user: userInfo().username, uid: -1, gid: -1 };
  const entry = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .map((line) => line.split(":"))
    .find((fields) => fields[0] === "mysql")!;
  return { user: "mysql", uid: Number(entry[2]), gid: Number(entry[3]) };
};

function owned(path: string): string {
  mkdirSync(path, { recursive: true });
  const { uid, gid } = account();
  if (uid >= 0) chownSync(path, uid, gid);
  return path;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startMariadb(dir: string, serverId: number, binlog: boolean): Promise<MariadbServer> {
  owned(dir);
  const data = join(dir, "data");
  const tmp = owned(join(dir, "tmp"));
  const install = spawnSync(
    "mariadb-install-db",
    [
      "--no-defaults",
      `--user=${account().user}`,
      `--datadir=${data}`,
      `--tmpdir=${tmp}`,
      "--auth-root-authentication-method=normal",
      "--skip-test-db",
    ],
    { encoding: "utf8" },
  );
  if (install.status !== 0) throw new Error(`mariadb-install-db failed: ${install.stderr}`);
  const port = await freePort();
  const child = spawn(
    "mariadbd",
    [
      "--no-defaults",
      `--user=${account().user}`,
      `--datadir=${data}`,
      `--port=${port}`,
      `--socket=${join(dir, "mariadb.sock")}`,
      `--tmpdir=${tmp}`,
      `--log-error=${join(dir, "error.log")}`,
      `--server-id=${serverId}`,
      "--bind-address=127.0.0.1",
      "--innodb-buffer-pool-size=128M",
      ...(binlog ? ["--log-bin=mariadb-bin", "--binlog-format=ROW", "--log-slave-updates"] : ["--skip-log-bin"]),
    ],
    { stdio: "ignore" },
  );
  for (let i = 0; i < 300; i++) {
    try {
      const connection = await createConnection({ host: "127.0.0.1", port, user: "root" });
      await connection.end();
      return { port, child };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  child.kill("SIGKILL");
  throw new Error(`mariadbd did not start: ${readFileSync(join(dir, "error.log"), "utf8").slice(-2000)}`);
}

async function query(port: number, sql: string, values: unknown[] = []): Promise<RowDataPacket[]> {
  const connection = await createConnection({ host: "127.0.0.1", port, user: "root" });
  try {
    const [rows] = await connection.query(sql, values);
    return rows as RowDataPacket[];
  } finally {
    await connection.end();
  }
}

// --- measuring ---------------------------------------------------------------------------------

async function listen(app: Parameters<typeof createServer>[1]): Promise<{ server: Server; base: string }> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function measure(base: string, scenario: (typeof READ_SCENARIOS)[number]) {
  const result = await autocannon({
    url: base + scenario.regapi.path,
    method: "POST",
    headers: { ...scenario.headers, "content-type": "application/json" },
    body: JSON.stringify(scenario.regapi.body),
    connections: CONNECTIONS,
    duration: SECONDS,
  });
  return {
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors,
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function post(base: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${base}/reg/api2/users/`, {
    method: "POST",
    headers: { ...BENCH_HEADERS, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "regapi-bench-replicas-"));
  owned(root);
  const servers: MariadbServer[] = [];
  const sources: DataSource[] = [];
  const listening: Server[] = [];
  try {
    const [primary, replica] = await Promise.all([
      startMariadb(join(root, "primary"), 1, true),
      startMariadb(join(root, "replica"), 2, false),
    ]);
    servers.push(primary, replica);
    await query(
      replica.port,
      `CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${primary.port}, MASTER_USER='root', MASTER_PASSWORD='', MASTER_USE_GTID=slave_pos`,
    );
    await query(replica.port, "START SLAVE");
    await query(primary.port, "CREATE DATABASE regapi_bench CHARACTER SET utf8mb4");
    const database = {
      kind: "mariadb" as const,
      host: "127.0.0.1",
      port: primary.port,
      user: "root",
      password: "",
      database: "regapi_bench",
    };
    const onPrimary = new DataSource(buildDataSourceOptions(database));
    sources.push(onPrimary);
    await onPrimary.initialize();
    await onPrimary.runMigrations({ transaction: "each" });
    const seeded = Date.now();
    await loadFixture(createRequestContext(processStateOf(onPrimary), "bench"), DEMO_FIXTURE);
    await seedRegistrants(processStateOf(onPrimary), { groupId: BENCH_GROUP_ID, users: USERS });
    const [{ pos }] = await query(primary.port, "SELECT @@gtid_binlog_pos AS pos");
    const [{ done }] = await query(replica.port, "SELECT MASTER_GTID_WAIT(?, 120) AS done", [pos]);
    if (Number(done) !== 0) throw new Error("the replica did not catch up");
    console.log(
      `demo + ${USERS} registrants on the primary, applied on the replica, in ${((Date.now() - seeded) / 1000).toFixed(1)} s`,
    );

    const config: Config = configWith({
      database,
      graphqlIntrospection: false,
      rateLimit: RATE_LIMITS_OFF,
      replicas: {
        ...DEFAULT_REPLICAS,
        urls: [`mariadb://root@127.0.0.1:${replica.port}/regapi_bench`],
        databases: [{ ...database, port: replica.port }],
      },
    });
    const withReplica = new DataSource(buildDataSourceOptions(database));
    sources.push(withReplica);
    await withReplica.initialize();
    const logger = createLogger("silent");
    // The replica app's runtime routes its reads over the replica; the primary app reads on the primary only.
    const replicaRuntime = await startRuntime({ dataSource: withReplica, config, logger, deliveryWorker: false });
    const primaryApp = await createApp({
      dataSource: onPrimary,
      logger,
      config: { ...config, replicas: { ...DEFAULT_REPLICAS } },
    });
    const replicaApp = await createApp({ dataSource: withReplica, logger, config, runtime: replicaRuntime });
    const a = await listen(primaryApp.app);
    const b = await listen(replicaApp.app);
    listening.push(a.server, b.server);

    console.log(
      `\nReads, primary path vs replica path (${CONNECTIONS} connections, ${SECONDS} s each; one machine, both servers on it)`,
    );
    console.log(
      "| request | primary req/s | p50 / p99 ms | replica req/s | p50 / p99 ms | replica/primary | failures |",
    );
    console.log("|---|---|---|---|---|---|---|");
    for (const scenario of READ_SCENARIOS) {
      await measure(a.base, scenario); // warm-up of both paths
      await measure(b.base, scenario);
      const onA = await measure(a.base, scenario);
      const onB = await measure(b.base, scenario);
      console.log(
        `| ${scenario.name} | ${onA.rps.toFixed(0)} | ${onA.p50} / ${onA.p99} | ${onB.rps.toFixed(0)} | ${onB.p50} / ${onB.p99} | ${(onB.rps / onA.rps).toFixed(2)} | ${onA.failures} / ${onB.failures} |`,
      );
    }
    const set = replicaRuntime.replicas!;
    console.log(`reads by target on the replica app: ${JSON.stringify(Object.fromEntries(set.counters.reads))}`);

    // Read-your-writes: each client renames a registrant of its own and reads it back at once
    // through the replica app. All clients are the same API account, so every read waits for the
    // account's latest write, whoever made it; a read that shows an older name is counted stale.
    const registrants = (
      await query(
        primary.port,
        "SELECT person_id FROM regapi_bench.registration WHERE project_id = ? AND connected_to IS NULL ORDER BY uid LIMIT ?",
        [BENCH_GROUP_ID, RYW_CLIENTS],
      )
    ).map((row) => Number(row.person_id));
    set.counters.waitSeconds.length = 0;
    const before = { ...set.counters.waits };
    const started = Date.now();
    let failures = 0;
    let stale = 0;
    await Promise.all(
      registrants.map(async (cloginId, client) => {
        for (let i = 0; i < RYW_PAIRS; i++) {
          const name = `Bench ${client}-${i}`;
          const write = await post(b.base, {
            action: "update",
            group_id: BENCH_GROUP_ID,
            clogin_id: cloginId,
            doc: { first_name: name },
          });
          const read = await post(b.base, {
            action: "get_info",
            group_id: BENCH_GROUP_ID,
            clogin_id: cloginId,
            doc: { first_name: true },
          });
          if (write.status !== 200 || read.status !== 200) failures += 1;
          else if ((read.body.doc as { first_name?: unknown } | undefined)?.first_name !== name) stale += 1;
        }
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    const waits = [...set.counters.waitSeconds].sort((x, y) => x - y).map((s) => s * 1000);
    const after = set.counters.waits;
    console.log(
      `\nRead-your-writes under a write load: ${RYW_CLIENTS} clients × ${RYW_PAIRS} (write, read back) pairs in ${seconds.toFixed(1)} s, ${failures} failed, ${stale} stale reads`,
    );
    console.log("| reads | waited, applied | timed out → primary | no wait needed | wait p50 | p90 | p99 | max |");
    console.log("|---|---|---|---|---|---|---|---|");
    console.log(
      `| ${RYW_CLIENTS * RYW_PAIRS} | ${after.applied - before.applied} | ${after.timedOut - before.timedOut} | ${after.notNeeded - before.notNeeded} | ${percentile(waits, 50).toFixed(2)} ms | ${percentile(waits, 90).toFixed(2)} ms | ${percentile(waits, 99).toFixed(2)} ms | ${(waits.at(-1) ?? 0).toFixed(2)} ms |`,
    );
    await primaryApp.stop();
    await replicaApp.stop();
    await replicaRuntime.stop();
  } finally {
    for (const server of listening) server.close();
    for (const source of sources) if (source.isInitialized) await source.destroy().catch(() => undefined);
    for (const server of servers) server.child.kill("SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 500));
    rmSync(root, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
