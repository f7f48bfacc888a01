import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { createClient } from "graphql-ws";
import { createConnection } from "mysql2/promise";
import WebSocket from "ws";
import { SERVER_NODE_FLAGS } from "../src/common/heap-growth";
import { BENCH_HEADERS } from "./scenarios";

// Live updates (issue 35 item 1): how long after a write's answer its event reaches a GraphQL
// subscriber (graphql-ws, as Apollo Client's GraphQLWsLink and urql use it), on the instance that
// made the write and on another one. Two service processes (`node dist/src/main.js`, the flags of
// `npm start`, NODE_ENV=production) on one fresh MariaDB database and Redis, as deployed, the
// delivery worker on (its default). A subscriber on instance A; writes (REST `update`, one at a
// time, 20-60 ms apart) go through A, then through B. The goals: same instance p50 < 100 ms and
// p99 < 300 ms, across instances p50 < 200 ms.
//   npm run bench:live
//   BENCH_COMPARE=/path/to/other/checkout npm run bench:live   # another build, side by side
// Environment: BENCH_WRITES (200 per case), BENCH_MARIADB_URL (mariadb://root@127.0.0.1:3306; the
// database regapi_bench_live is dropped and re-created), BENCH_REDIS_URL (redis://127.0.0.1:6379;
// keys under a prefix of this run), BENCH_COMPARE (another checkout, built, measured the same way).

const WRITES = Number(process.env.BENCH_WRITES ?? 200);
const MARIADB = process.env.BENCH_MARIADB_URL ?? "mariadb://root@127.0.0.1:3306";
const REDIS = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const DATABASE = "regapi_bench_live";
const GROUP_ID = 100909072;
const CLOGIN_ID = 102670540;
/** An event that has not come this long after its write counts as lost. */
const LOST_AFTER_MS = 10_000;

interface Checkout {
  label: string;
  root: string;
}

const checkouts: Checkout[] = [{ label: "this checkout", root: resolve(__dirname, "../..") }];
if (process.env.BENCH_COMPARE) checkouts.push({ label: "compared", root: resolve(process.env.BENCH_COMPARE) });

function cli(checkout: Checkout, databaseUrl: string, ...args: string[]): void {
  const run = spawnSync(process.execPath, [join(checkout.root, "bin/regapi.js"), ...args], {
    cwd: checkout.root,
    env: { PATH: process.env.PATH ?? "", DATABASE_URL: databaseUrl, LOG_LEVEL: "warn" },
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`regapi ${args.join(" ")} failed: ${run.stderr}${run.stdout}`);
}

async function freshDatabase(checkout: Checkout): Promise<string> {
  const admin = await createConnection({ uri: MARIADB.replace(/^mariadb:/, "mysql:") });
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
  await admin.query(`CREATE DATABASE ${DATABASE} CHARACTER SET utf8mb4`);
  await admin.end();
  const databaseUrl = `${MARIADB}/${DATABASE}`;
  cli(checkout, databaseUrl, "migrate");
  cli(checkout, databaseUrl, "demo");
  return databaseUrl;
}

interface Service {
  child: ChildProcess;
  origin: string;
  mailDir: string;
}

async function startService(checkout: Checkout, databaseUrl: string, keyPrefix: string): Promise<Service> {
  const mailDir = mkdtempSync(join(tmpdir(), "regapi-bench-live-mail-"));
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, join(checkout.root, "dist/src/main.js")], {
    cwd: checkout.root,
    env: {
      PATH: process.env.PATH ?? "",
      NODE_ENV: "production",
      DATABASE_URL: databaseUrl,
      REDIS_URL: REDIS,
      REDIS_KEY_PREFIX: keyPrefix,
      PORT: "0",
      DEMO: "false",
      LOG_LEVEL: "info",
      LOG_FORMAT: "json",
      RATE_LIMIT_PER_MINUTE: "0",
      RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: "0",
      MAIL_DIR: mailDir,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolvePort, reject) => {
    child.once("exit", (code) => reject(new Error(`service exited ${code} before listening`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      try {
        const parsed = JSON.parse(line) as { msg?: string; port?: number };
        if (parsed.msg === "listening" && parsed.port) resolvePort(parsed.port);
      } catch {
        // not a log line
      }
    });
  });
  return { child, origin: `http://127.0.0.1:${port}`, mailDir };
}

async function stopService(service: Service): Promise<void> {
  if (service.child.exitCode === null) {
    const exited = new Promise((done) => service.child.once("exit", done));
    service.child.kill("SIGTERM");
    await exited;
  }
  rmSync(service.mailDir, { recursive: true, force: true });
}

/** A subscriber of the project's registration events on `origin`: the arrival time of each event, by clogin id. */
async function subscribe(origin: string) {
  const client = createClient({
    url: `${origin.replace(/^http/, "ws")}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: BENCH_HEADERS,
    retryAttempts: 0,
  });
  let waiter: ((arrivedAt: number) => void) | null = null;
  const first = new Promise<void>((resolveFirst, reject) => {
    client.subscribe(
      { query: `subscription { registrationChanged(groupId: ${GROUP_ID}) { eventId cloginId } }` },
      {
        next: (result) => {
          const arrivedAt = performance.now();
          resolveFirst();
          if (result.errors) return reject(new Error(JSON.stringify(result.errors)));
          const event = (result.data as { registrationChanged: { cloginId: number } }).registrationChanged;
          if (event.cloginId !== CLOGIN_ID || !waiter) return;
          const wake = waiter;
          waiter = null;
          wake(arrivedAt);
        },
        error: (error) => reject(error instanceof Error ? error : new Error(JSON.stringify(error))),
        complete: () => undefined,
      },
    );
  });
  return {
    first,
    /** The arrival time of the next event about the benchmark's registrant, or null once LOST_AFTER_MS passed. */
    next(): Promise<number | null> {
      return new Promise((resolveNext) => {
        const timer = setTimeout(() => {
          waiter = null;
          resolveNext(null);
        }, LOST_AFTER_MS);
        waiter = (arrivedAt) => {
          clearTimeout(timer);
          resolveNext(arrivedAt);
        };
      });
    },
    dispose: () => client.dispose(),
  };
}

let renames = 0;
async function rename(origin: string): Promise<void> {
  const response = await fetch(`${origin}/reg/api2/users/`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...BENCH_HEADERS },
    body: JSON.stringify({
      action: "update",
      group_id: GROUP_ID,
      clogin_id: CLOGIN_ID,
      doc: { first_name: `Live${++renames}` },
    }),
  });
  if (response.status !== 200) throw new Error(`update answered ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
}

const percentile = (values: number[], p: number) =>
  values.length === 0 ? NaN : [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) * p)];

interface CaseResult {
  /** Event arrival minus the write's answer, ms (negative: the event came before the answer). */
  latencies: number[];
  lost: number;
}

/** `WRITES` writes through `writeOrigin`, each waited for on the subscriber. */
async function measure(subscriber: Awaited<ReturnType<typeof subscribe>>, writeOrigin: string): Promise<CaseResult> {
  const latencies: number[] = [];
  let lost = 0;
  for (let i = 0; i < WRITES; i += 1) {
    const arrival = subscriber.next();
    await rename(writeOrigin);
    const answeredAt = performance.now();
    const arrivedAt = await arrival;
    if (arrivedAt === null) lost += 1;
    else latencies.push(arrivedAt - answeredAt);
    await new Promise((done) => setTimeout(done, 20 + Math.random() * 40));
  }
  return { latencies, lost };
}

async function runCheckout(checkout: Checkout): Promise<{ same: CaseResult; across: CaseResult }> {
  const databaseUrl = await freshDatabase(checkout);
  const keyPrefix = `regapi-bench-live-${process.pid}-${Date.now()}:`;
  const a = await startService(checkout, databaseUrl, keyPrefix);
  const b = await startService(checkout, databaseUrl, keyPrefix);
  const subscriber = await subscribe(a.origin);
  try {
    // The subscription is registered once an event arrives: write until one does.
    for (let i = 0; i < 50; i += 1) {
      await rename(a.origin);
      const registered = await Promise.race([
        subscriber.first.then(() => true),
        new Promise<boolean>((done) => setTimeout(() => done(false), 1000)),
      ]);
      if (registered) break;
    }
    await new Promise((done) => setTimeout(done, 2000));
    const same = await measure(subscriber, a.origin);
    const across = await measure(subscriber, b.origin);
    return { same, across };
  } finally {
    await subscriber.dispose();
    await stopService(a);
    await stopService(b);
  }
}

const ms = (value: number) => (Number.isNaN(value) ? "–" : `${Math.max(0, value).toFixed(0)} ms`);

function summary(result: CaseResult): string {
  const early = result.latencies.filter((latency) => latency < 0).length;
  return (
    `p50 ${ms(percentile(result.latencies, 0.5))}, p99 ${ms(percentile(result.latencies, 0.99))}, ` +
    `max ${ms(Math.max(...result.latencies))}` +
    (early > 0 ? `, ${early} before the answer` : "") +
    (result.lost > 0 ? `, ${result.lost} LOST` : "")
  );
}

async function main(): Promise<void> {
  const load = loadavg().map((value) => value.toFixed(1));
  console.log(
    `live updates: ${WRITES} writes per case, two instances on MariaDB + Redis, load average ${load.join(" ")} at start`,
  );
  const results: { checkout: Checkout; same: CaseResult; across: CaseResult }[] = [];
  for (const checkout of checkouts) results.push({ checkout, ...(await runCheckout(checkout)) });
  const rows = [
    { name: "same instance (write through A, subscriber on A)", goal: "p50 < 100 ms, p99 < 300 ms", key: "same" },
    { name: "across instances (write through B, subscriber on A)", goal: "p50 < 200 ms", key: "across" },
  ] as const;
  for (const row of rows) {
    console.log(`\n${row.name}; goal ${row.goal}`);
    for (const result of results) console.log(`  ${result.checkout.label.padEnd(14)} ${summary(result[row.key])}`);
  }
  console.log(
    `\nload average ${loadavg()
      .map((value) => value.toFixed(1))
      .join(" ")} at the end`,
  );
  if (results.some((result) => result.same.lost + result.across.lost > 0)) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
