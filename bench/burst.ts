import autocannon from "autocannon";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createConnection } from "mysql2/promise";
import { DEMO_CREDENTIALS, DEMO_FIXTURE } from "../src/fixtures/demo";

// A registration-opening burst (issue 21): BENCH_BURST (1,000) requests sent at once, each on a
// fresh connection, half REST get_project_list and half GraphQL `projects`, against one instance
// and against two instances behind HAProxy (deploy/haproxy/instances.cfg). Counted: answered 200,
// shed 503 (with Retry-After), failed otherwise (no answer, another status), and how long they
// took. Every build runs as a real process (`node dist/src/main.js`) on MariaDB with its default
// settings (pool of 10 per instance), so two checkouts can be measured side by side:
//   npm run bench:burst                                          # this checkout
//   BENCH_COMPARE=/path/to/other/checkout npm run bench:burst    # and another one, built
// After the bursts, each setup also serves a steady load (BENCH_STEADY_SECONDS, 10; 20 keep-alive
// connections, the same two requests in turn): the throughput of two instances against one.
// Environment: BENCH_BURST (1000), BENCH_RUNS (3 per setup), BENCH_MARIADB_URL
// (mariadb://root@127.0.0.1:3306; the database regapi_bench_burst is dropped and re-created),
// BENCH_INSTANCES ("1,2"), BENCH_COMPARE.

const BURST = Number(process.env.BENCH_BURST ?? 1000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const STEADY_SECONDS = Number(process.env.BENCH_STEADY_SECONDS ?? 10);
const STEADY_CONNECTIONS = 20;
const MARIADB = process.env.BENCH_MARIADB_URL ?? "mariadb://root@127.0.0.1:3306";
const INSTANCES = (process.env.BENCH_INSTANCES ?? "1,2").split(",").map(Number);
const DEMO_GROUP = 100909072;
const DATABASE = "regapi_bench_burst";

interface Checkout {
  label: string;
  root: string;
}

const checkouts: Checkout[] = [{ label: "this checkout", root: resolve(__dirname, "../..") }];
if (process.env.BENCH_COMPARE) checkouts.push({ label: "compared", root: resolve(process.env.BENCH_COMPARE) });

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === "object" && address ? address.port : 0));
    });
  });
}

function cli(checkout: Checkout, databaseUrl: string, ...args: string[]): void {
  const run = spawnSync(process.execPath, [join(checkout.root, "bin/regapi.js"), ...args], {
    cwd: checkout.root,
    env: { PATH: process.env.PATH ?? "", DATABASE_URL: databaseUrl, LOG_LEVEL: "warn" },
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`regapi ${args.join(" ")} failed: ${run.stderr}${run.stdout}`);
}

async function freshDatabase(checkout: Checkout, fixtureFile: string): Promise<string> {
  const admin = await createConnection({ uri: MARIADB.replace(/^mariadb:/, "mysql:") });
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
  await admin.query(`CREATE DATABASE ${DATABASE} CHARACTER SET utf8mb4`);
  await admin.end();
  const databaseUrl = `${MARIADB}/${DATABASE}`;
  cli(checkout, databaseUrl, "migrate");
  cli(checkout, databaseUrl, "load", fixtureFile);
  return databaseUrl;
}

async function startService(checkout: Checkout, databaseUrl: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(checkout.root, "dist/src/main.js")], {
    cwd: checkout.root,
    env: {
      PATH: process.env.PATH ?? "",
      NODE_ENV: "production",
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      DEMO: "false",
      LOG_LEVEL: "warn",
      LOG_FORMAT: "json",
      // The burst tests the pool's admission, not the per-account limit (one client sends it all).
      RATE_LIMIT_PER_MINUTE: "0",
      RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: "0",
      DELIVERY_WORKER: "false",
      TRUST_PROXY: "loopback",
      MAIL_DIR: mkdtempSync(join(tmpdir(), "regapi-burst-mail-")),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  child.stdout!.resume();
  // Listening once /healthz answers (LOG_LEVEL=warn keeps the "listening" line out).
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child.exitCode !== null) throw new Error(`service exited ${child.exitCode} before listening`);
    if ((await get(port, "/healthz")) === 200) return child;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error("service did not answer /healthz within 20 s");
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once("exit", done));
  child.kill("SIGTERM");
  await exited;
}

function get(port: number, path: string): Promise<number> {
  return new Promise((done) => {
    const req = request({ host: "127.0.0.1", port, path, agent: false, timeout: 2000 }, (res) => {
      res.resume();
      res.on("end", () => done(res.statusCode ?? 0));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => done(0));
    req.end();
  });
}

/** HAProxy with the committed instances.cfg, its server lines replaced by the instances' ports. */
async function startHaproxy(ports: number[]): Promise<{ child: ChildProcess; port: number; dir: string }> {
  const template = readFileSync(join(__dirname, "../../deploy/haproxy/instances.cfg"), "utf8");
  const lines: string[] = [];
  let written = false;
  for (const line of template.split("\n")) {
    if (!/^\s+server\s/.test(line)) lines.push(line);
    else if (!written) {
      written = true;
      ports.forEach((port, i) => lines.push(`    server app${i + 1} 127.0.0.1:${port}`));
    }
  }
  const dir = mkdtempSync(join(tmpdir(), "regapi-burst-haproxy-"));
  writeFileSync(join(dir, "haproxy.cfg"), lines.join("\n"));
  const port = await freePort();
  const child = spawn("haproxy", ["-f", join(dir, "haproxy.cfg"), "-db"], {
    env: {
      PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/bin",
      REGAPI_LISTEN: `127.0.0.1:${port}`,
      HAPROXY_STATS_SOCKET: join(dir, "stats.sock"),
      REGAPI_CHECK_INTER: "500ms",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  // Up once the checks have put every instance in rotation (rise 2 × 500 ms).
  await new Promise((done) => setTimeout(done, 1500));
  if ((await get(port, "/readyz")) !== 200) throw new Error("HAProxy does not reach the instances");
  return { child, port, dir };
}

interface Answer {
  status: number;
  ms: number;
  retryAfter: boolean;
  /** Why there was no answer (ECONNRESET, …), or the error code of a failed answer. */
  cause?: string;
}

const REST_BODY = JSON.stringify({ action: "get_project_list", group_id: DEMO_GROUP, doc: {} });
const GRAPHQL_BODY = JSON.stringify({ query: "{ projects { groupId name } }" });
const HEADERS = {
  "Api-Id": DEMO_CREDENTIALS.apiId,
  "Api-User": DEMO_CREDENTIALS.apiUser,
  "Api-Token": DEMO_CREDENTIALS.apiToken,
  "Content-Type": "application/json",
};

function hit(port: number, i: number): Promise<Answer> {
  const graphql = i % 2 === 1;
  const body = graphql ? GRAPHQL_BODY : REST_BODY;
  const started = performance.now();
  return new Promise((done) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: graphql ? "/graphql" : "/reg/api2/projects/",
        agent: false,
        headers: { ...HEADERS, "Content-Length": Buffer.byteLength(body) },
        timeout: 60_000,
      },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
        res.on("end", () =>
          done({
            status: res.statusCode ?? 0,
            ms: performance.now() - started,
            retryAfter: res.headers["retry-after"] !== undefined,
            cause: /"(?:error_code|code)":"([A-Z_]+)"/.exec(text)?.[1],
          }),
        );
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", (error: NodeJS.ErrnoException) =>
      done({ status: 0, ms: performance.now() - started, retryAfter: false, cause: error.code ?? error.message }),
    );
    req.end(body);
  });
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

interface Figures {
  /** Failed answers by status and cause, e.g. {"0 ECONNRESET": 3}. */
  failedBy: Record<string, number>;
  ok: number;
  shed: number;
  failed: number;
  p50: number;
  p95: number;
  max: number;
  okMax: number;
  shedMax: number;
  wall: number;
}

async function burst(port: number): Promise<Figures> {
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: BURST }, (_, i) => hit(port, i)));
  const wall = performance.now() - started;
  const ok = answers.filter((a) => a.status === 200);
  const shed = answers.filter((a) => a.status === 503 && a.retryAfter);
  const ms = answers.map((a) => a.ms);
  const failedBy: Record<string, number> = {};
  for (const a of answers)
    if (a.status !== 200 && !(a.status === 503 && a.retryAfter)) {
      const label = `${a.status} ${a.cause ?? ""}`.trim();
      failedBy[label] = (failedBy[label] ?? 0) + 1;
    }
  return {
    failedBy,
    ok: ok.length,
    shed: shed.length,
    failed: answers.length - ok.length - shed.length,
    p50: percentile(ms, 50),
    p95: percentile(ms, 95),
    max: percentile(ms, 100),
    okMax: percentile(
      ok.map((a) => a.ms),
      100,
    ),
    shedMax: percentile(
      shed.map((a) => a.ms),
      100,
    ),
    wall,
  };
}

interface Steady {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** Requests per second under a steady closed-loop load, REST and GraphQL in turn. */
async function steady(port: number): Promise<Steady> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: STEADY_CONNECTIONS,
    duration: STEADY_SECONDS,
    headers: HEADERS,
    requests: [
      { method: "POST", path: "/reg/api2/projects/", body: REST_BODY },
      { method: "POST", path: "/graphql", body: GRAPHQL_BODY },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

async function measure(
  checkout: Checkout,
  fixtureFile: string,
  count: number,
): Promise<{ bursts: Figures[]; steady: Steady }> {
  const databaseUrl = await freshDatabase(checkout, fixtureFile);
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
  const children: ChildProcess[] = [];
  let haproxy: Awaited<ReturnType<typeof startHaproxy>> | null = null;
  try {
    for (const port of ports) children.push(await startService(checkout, databaseUrl, port));
    let target = ports[0];
    if (count > 1) {
      haproxy = await startHaproxy(ports);
      target = haproxy.port;
    }
    // Warm: the account is read, GraphQL compiled, the pool opened, before the first burst.
    for (let i = 0; i < 20; i++) await hit(target, i);
    const runs: Figures[] = [];
    for (let run = 0; run < RUNS; run++) {
      runs.push(await burst(target));
      // Let the pool and the machine settle between bursts.
      await new Promise((done) => setTimeout(done, 2000));
    }
    return { bursts: runs, steady: await steady(target) };
  } finally {
    if (haproxy) {
      await stopProcess(haproxy.child);
      rmSync(haproxy.dir, { recursive: true, force: true });
    }
    await Promise.all(children.map(stopProcess));
  }
}

const row = (label: string, f: Figures) =>
  `| ${label} | ${f.ok} | ${f.shed} | ${f.failed} | ${Math.round(f.p50)} | ${Math.round(f.p95)} | ${Math.round(f.max)} | ${Math.round(f.okMax)} | ${Math.round(f.shedMax)} | ${Math.round(f.wall)} |`;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "regapi-burst-"));
  const fixtureFile = join(dir, "demo.json");
  writeFileSync(fixtureFile, JSON.stringify(DEMO_FIXTURE));
  const lines = [
    `A burst of ${BURST} concurrent requests (fresh connections, half REST get_project_list, half GraphQL projects), MariaDB, pool of 10 per instance, ${RUNS} runs each:`,
    "",
    "| build, instances | 200 | 503 + Retry-After | failed | p50 ms | p95 ms | max ms | slowest 200 ms | slowest 503 ms | wall ms |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  const steadyLines = [
    "",
    `Steady load, ${STEADY_CONNECTIONS} keep-alive connections for ${STEADY_SECONDS} s (the same two requests in turn):`,
    "",
    "| build, instances | req/s | p50 ms | p99 ms | non-2xx | errors |",
    "| --- | --- | --- | --- | --- | --- |",
  ];
  try {
    for (const count of INSTANCES)
      for (const checkout of checkouts) {
        const measured = await measure(checkout, fixtureFile, count);
        const label = `${checkout.label}, ${count === 1 ? "1 instance" : `${count} behind HAProxy`}`;
        const s = measured.steady;
        const steadyRow = `| ${label} | ${Math.round(s.rps)} | ${s.p50} | ${s.p99} | ${s.non2xx} | ${s.errors} |`;
        steadyLines.push(steadyRow);
        process.stderr.write(`${steadyRow}\n`);
        for (const figures of measured.bursts) {
          lines.push(row(label, figures));
          process.stderr.write(`${row(label, figures)}\n`);
          if (figures.failed > 0) process.stderr.write(`  failed: ${JSON.stringify(figures.failedBy)}\n`);
        }
      }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`${[...lines, ...steadyLines].join("\n")}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
