import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { createConnection } from "mysql2/promise";
import { DataSource } from "typeorm";
import { parseDatabaseUrl } from "../src/config/config";
import { buildDataSourceOptions } from "../src/db/data-source-options";
import { DEMO_CREDENTIALS, DEMO_FIXTURE } from "../src/fixtures/demo";
import { hashPassword } from "../src/auth/secrets";
import { SERVER_NODE_FLAGS } from "../src/common/heap-growth";

// Registration day (issue 26): N concurrent clients register into one project at the same minute
// (users `create` with the documented doc keys; the demo's form-301 triggers add a cart line, a
// form and an email), then each updates the registrants it created; the two phases are measured
// apart. The same load spread over 10
// projects. Every build is a real process (`node dist/src/main.js`) on a fresh database, so two
// checkouts can be measured side by side:
//   npm run bench:registration-day                               # this checkout, MariaDB and SQLite
//   BENCH_COMPARE=/path/to/other/checkout npm run bench:registration-day
// Environment: BENCH_DATABASES (mariadb,sqlite), BENCH_CLIENTS (10,40,100), BENCH_CREATES_PER_CLIENT
// (15), BENCH_PASSWORD (1: every create sends a password; both: the table without, then with),
// BENCH_SPREAD (1,10: into one project, then spread over ten; 1 for one project only), BENCH_MARIADB_URL (mariadb://root@127.0.0.1:3306; the database regapi_bench_regday is
// dropped and re-created), BENCH_COMPARE (another checkout, built, whose figures print beside),
// BENCH_NODE_ARGS (node arguments for the service, e.g. --cpu-prof).

const CLIENTS = (process.env.BENCH_CLIENTS ?? "10,40,100").split(",").map(Number);
const CREATES_PER_CLIENT = Number(process.env.BENCH_CREATES_PER_CLIENT ?? 15);
const DATABASES = (process.env.BENCH_DATABASES ?? "mariadb,sqlite").split(",") as ("mariadb" | "sqlite")[];
const MARIADB = process.env.BENCH_MARIADB_URL ?? "mariadb://root@127.0.0.1:3306";
// scrypt (src/auth/secrets.ts) costs about 40 ms of CPU per password on purpose: with passwords,
// a 2-core machine hashes at most about 50 per second whatever the database does. The bench
// measures that floor where it runs (hashingFloor) and prints it with the password rows.
const PASSWORD_MODES: boolean[] =
  process.env.BENCH_PASSWORD === "both" ? [false, true] : [process.env.BENCH_PASSWORD === "1"];
const SPREADS = (process.env.BENCH_SPREAD ?? "1,10").split(",").map(Number);
const DEMO_GROUP = 100909072;
const SPREAD_PROJECTS = 10;

interface Checkout {
  label: string;
  root: string;
}

const checkouts: Checkout[] = [{ label: "this checkout", root: resolve(__dirname, "../..") }];
if (process.env.BENCH_COMPARE) checkouts.push({ label: "compared", root: resolve(process.env.BENCH_COMPARE) });

// ---------------------------------------------------------------------------------------------
// The fixture: the demo organization plus nine copies of its camp project (ids shifted), so the
// spread load has ten projects of the same shape, triggers included.

type Json = Record<string, unknown>;

const groupOfCopy = (copy: number) => DEMO_GROUP + copy * 100;

function cloneProject(project: Json, copy: number): Json {
  const shift = (id: unknown) => Number(id) + copy * 10_000;
  const clone = structuredClone(project) as Json & {
    forms: (Json & { fields: Json[] })[];
    triggers: Json[];
    products: Json[];
    statuses: Json[];
    tags: Json[];
    categories?: Json[];
  };
  clone.id = groupOfCopy(copy);
  clone.name = `${String(project.name)} (copy ${copy})`;
  clone.users = [];
  for (const list of [clone.statuses, clone.tags, clone.categories ?? []])
    for (const item of list) item.id = shift(item.id);
  for (const product of clone.products) {
    product.id = shift(product.id);
    if (product.categoryId !== undefined) product.categoryId = shift(product.categoryId);
    if (product.parentProductId !== undefined) product.parentProductId = shift(product.parentProductId);
  }
  for (const form of clone.forms) {
    const formId = shift(form.id);
    form.id = formId;
    for (const field of form.fields) field.id = String(field.id).replace(/^f_\d+_/, `f_${formId}_`);
  }
  for (const trigger of clone.triggers) {
    trigger.formId = shift(trigger.formId);
    if (trigger.productId !== undefined) trigger.productId = shift(trigger.productId);
    if (trigger.addFormId !== undefined) trigger.addFormId = shift(trigger.addFormId);
  }
  return clone;
}

function benchFixture(): Json {
  const fixture = structuredClone(DEMO_FIXTURE) as { organizations: (Json & { projects: Json[] })[] };
  const org = fixture.organizations[0];
  const demo = org.projects.find((project) => project.id === DEMO_GROUP)!;
  for (let copy = 1; copy < SPREAD_PROJECTS; copy += 1) org.projects.push(cloneProject(demo, copy));
  for (const admin of (org.admins ?? []) as Json[]) admin.projectIds = org.projects.map((project) => project.id);
  return fixture;
}

// ---------------------------------------------------------------------------------------------
// One build on one database: prepare with its own CLI, then run it as a process.

function cli(checkout: Checkout, databaseUrl: string, ...args: string[]): void {
  const run = spawnSync(process.execPath, [join(checkout.root, "bin/regapi.js"), ...args], {
    cwd: checkout.root,
    env: { PATH: process.env.PATH ?? "", DATABASE_URL: databaseUrl, LOG_LEVEL: "warn" },
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`regapi ${args.join(" ")} failed: ${run.stderr}${run.stdout}`);
}

async function freshDatabase(kind: "mariadb" | "sqlite", fixtureFile: string, checkout: Checkout) {
  let databaseUrl: string;
  let cleanup = () => undefined as void;
  if (kind === "mariadb") {
    const admin = await createConnection({ uri: MARIADB.replace(/^mariadb:/, "mysql:") });
    await admin.query("DROP DATABASE IF EXISTS regapi_bench_regday");
    await admin.query("CREATE DATABASE regapi_bench_regday CHARACTER SET utf8mb4");
    await admin.end();
    databaseUrl = `${MARIADB}/regapi_bench_regday`;
  } else {
    const dir = mkdtempSync(join(tmpdir(), "regapi-regday-"));
    databaseUrl = `sqlite:${join(dir, "regday.sqlite")}`;
    cleanup = () => rmSync(dir, { recursive: true, force: true });
  }
  cli(checkout, databaseUrl, "migrate");
  cli(checkout, databaseUrl, "load", fixtureFile);
  return { databaseUrl, cleanup };
}

async function startService(
  checkout: Checkout,
  databaseUrl: string,
): Promise<{ child: ChildProcess; port: number; reruns: Reruns }> {
  // e.g. BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the service under the load.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
  // The node flags of `npm start`, as every bench gives the service.
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...nodeArgs, join(checkout.root, "dist/src/main.js")], {
    cwd: checkout.root,
    env: {
      PATH: process.env.PATH ?? "",
      NODE_ENV: "production",
      DATABASE_URL: databaseUrl,
      PORT: "0",
      DEMO: "false",
      LOG_LEVEL: "info",
      LOG_FORMAT: "json",
      RATE_LIMIT_PER_MINUTE: "0",
      RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: "0",
      DELIVERY_WORKER: "false",
      MAIL_DIR: mkdtempSync(join(tmpdir(), "regapi-regday-mail-")),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const reruns = { count: 0, byCause: new Map<string, number>() };
  const port = await new Promise<number>((resolvePort, reject) => {
    child.once("exit", (code) => reject(new Error(`service exited ${code} before listening`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      try {
        const parsed = JSON.parse(line) as { msg?: string; port?: number; action?: string; code?: string | null };
        if (parsed.msg === "listening" && parsed.port) resolvePort(parsed.port);
        // Each rerun of a unit of work is logged at info (src/http/rerun-log.ts).
        if (parsed.msg === "transaction rerun") {
          reruns.count += 1;
          const cause = `${parsed.action ?? "?"} ${parsed.code ?? "?"}`;
          reruns.byCause.set(cause, (reruns.byCause.get(cause) ?? 0) + 1);
        }
      } catch {
        // not a log line
      }
    });
  });
  return { child, port, reruns };
}

async function stopService(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((done) => child.once("exit", done));
  child.kill("SIGTERM");
  await exited;
}

/**
 * CPU time a process has used so far, in ms (Linux /proc; null elsewhere or when unreadable):
 * where a request's time goes, the service or the database server.
 */
function cpuMs(pid: number | null | undefined): number | null {
  if (!pid) return null;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    // utime and stime, fields 14 and 15 of stat (11 and 12 after the command name), in clock ticks.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

function mariadbPid(): number | null {
  try {
    return Number(readFileSync("/run/mysqld/mysqld.pid", "utf8").trim());
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// The load: each client creates a registrant, then updates it, CREATES_PER_CLIENT times.

interface Answer {
  status: number;
  code: string | null;
  ms: number;
  body: Json | null;
}

function post(agent: Agent, port: number, path: string, body: unknown): Promise<Answer> {
  const payload = Buffer.from(JSON.stringify(body));
  const started = performance.now();
  return new Promise((done) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "content-length": payload.length,
          "api-id": DEMO_CREDENTIALS.apiId,
          "api-user": DEMO_CREDENTIALS.apiUser,
          "api-token": DEMO_CREDENTIALS.apiToken,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          let parsed: Json | null;
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Json;
          } catch {
            parsed = null;
          }
          const code = parsed && typeof parsed.error_code === "string" ? parsed.error_code : null;
          done({ status: res.statusCode ?? 0, code, ms: performance.now() - started, body: parsed });
        });
      },
    );
    req.on("error", (error) => done({ status: 0, code: error.message, ms: performance.now() - started, body: null }));
    req.end(payload);
  });
}

/** One phase of the load: its requests' throughput, latency and failures, and the CPU they cost. */
interface PhaseResult {
  done: number;
  perSecond: number;
  p50: number;
  p99: number;
  failures: Map<string, number>;
  /** CPU ms per request of the service and of the database server (null: not measurable here). */
  serviceCpu: number | null;
  databaseCpu: number | null;
  /** Units of work rerun after a conflict during the phase, per 1,000 answered requests. */
  rerunsPerThousand: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

/**
 * Runs `request` `perClient` times on each of `clients` concurrent clients, measuring the phase.
 * `request` answers null when it has nothing to send.
 */
async function runPhase(
  pids: Pids,
  clients: number,
  perClient: number,
  request: (agent: Agent, client: number, i: number) => Promise<Answer | null>,
): Promise<PhaseResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const times: number[] = [];
  const failures = new Map<string, number>();
  const cpuBefore = [cpuMs(pids.service), cpuMs(pids.database)];
  const rerunsBefore = pids.reruns.count;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let i = 0; i < perClient; i += 1) {
        const answer = await request(agent, client, i);
        if (!answer) continue;
        if (answer.status === 200) times.push(answer.ms);
        else {
          const key = `${answer.status} ${answer.code ?? ""}`.trim();
          failures.set(key, (failures.get(key) ?? 0) + 1);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = [cpuMs(pids.service), cpuMs(pids.database)];
  agent.destroy();
  times.sort((a, b) => a - b);
  const perRequest = (i: number) =>
    cpuBefore[i] === null || cpuAfter[i] === null || times.length === 0
      ? null
      : (cpuAfter[i]! - cpuBefore[i]!) / times.length;
  return {
    done: times.length,
    perSecond: times.length / seconds,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    failures,
    serviceCpu: perRequest(0),
    databaseCpu: perRequest(1),
    rerunsPerThousand: (1000 * (pids.reruns.count - rerunsBefore)) / (times.length || 1),
  };
}

/**
 * The morning registration opens: every client creates registrants, then (the registrants
 * completing their details) updates each one it created.
 */
/** The service's reruns so far, counted from its log, in all and by unit of work and database error. */
interface Reruns {
  count: number;
  byCause: Map<string, number>;
}

interface Pids {
  service: number | undefined;
  database: number | null;
  reruns: Reruns;
}

async function runLoad(
  port: number,
  pids: Pids,
  clients: number,
  groups: number[],
  run: string,
  withPassword: boolean,
): Promise<{ creates: PhaseResult; updates: PhaseResult }> {
  const formOf = (group: number) => 301 + ((group - DEMO_GROUP) / 100) * 10_000;
  const created: { group: number; cloginId: unknown }[][] = Array.from({ length: clients }, () => []);
  const creates = await runPhase(pids, clients, CREATES_PER_CLIENT, async (agent, client, i) => {
    const group = groups[(client + i) % groups.length];
    const formId = formOf(group);
    const answer = await post(agent, port, "/reg/api2/users/", {
      action: "create",
      group_id: group,
      doc: {
        main_email: `regday-${run}-${client}-${i}@bench.test`,
        ...(withPassword ? { password: "bench-password" } : {}),
        first_name: `Camper${client}`,
        last_name: `Bench${i}`,
        [`f_${formId}_1`]: `Camper${client}`,
        [`f_${formId}_3`]: "M",
      },
    });
    if (answer.status === 200)
      created[client].push({ group, cloginId: (answer.body?.user_info as Json | undefined)?.clogin_id });
    return answer;
  });
  const updates = await runPhase(pids, clients, CREATES_PER_CLIENT, async (agent, client, i) => {
    const registrant = created[client][i];
    if (!registrant) return null;
    return post(agent, port, "/reg/api2/users/", {
      action: "update",
      group_id: registrant.group,
      clogin_id: registrant.cloginId,
      doc: { [`f_${formOf(registrant.group)}_3`]: "L" },
    });
  });
  return { creates, updates };
}

/** The registrations each project's counters hold (get_project_list with totals). */
async function projectUsers(port: number): Promise<Map<number, number>> {
  const agent = new Agent({ keepAlive: false });
  const answer = await post(agent, port, "/reg/api2/projects/", {
    action: "get_project_list",
    group_id: DEMO_GROUP,
    doc: { with_group_totals: true },
  });
  agent.destroy();
  if (answer.status !== 200) return new Map([[-1, answer.status]]);
  const list = (answer.body?.projects ?? []) as { group_id: string; group_totals?: { total_users: string } }[];
  return new Map(list.map((project) => [Number(project.group_id), Number(project.group_totals?.total_users)]));
}

/** Registrations per project, counted in the database itself. */
async function registrationsPerProject(databaseUrl: string): Promise<Map<number, number>> {
  const dataSource = new DataSource(buildDataSourceOptions(parseDatabaseUrl(databaseUrl)));
  await dataSource.initialize();
  const rows = (await dataSource.query("SELECT project_id, COUNT(*) AS n FROM registration GROUP BY project_id")) as {
    project_id: number;
    n: number;
  }[];
  await dataSource.destroy();
  return new Map(rows.map((row) => [Number(row.project_id), Number(row.n)]));
}

// ---------------------------------------------------------------------------------------------

/** The reruns of each row by unit of work and database error, printed after the table. */
const rerunNotes: string[] = [];

interface Row {
  checkout: string;
  passwords: boolean;
  database: string;
  spread: string;
  clients: number;
  creates: PhaseResult;
  updates: PhaseResult;
  counted: string;
}

async function measure(
  checkout: Checkout,
  kind: "mariadb" | "sqlite",
  fixtureFile: string,
  withPassword: boolean,
): Promise<Row[]> {
  const rows: Row[] = [];
  const spreads = SPREADS.map((n) => (n === 1 ? "1 project" : `${SPREAD_PROJECTS} projects`));
  for (const spread of spreads) {
    const groups =
      spread === "1 project" ? [DEMO_GROUP] : Array.from({ length: SPREAD_PROJECTS }, (_, i) => groupOfCopy(i));
    for (const clients of CLIENTS) {
      const database = await freshDatabase(kind, fixtureFile, checkout);
      const service = await startService(checkout, database.databaseUrl);
      try {
        const pids = {
          service: service.child.pid,
          database: kind === "mariadb" ? mariadbPid() : null,
          reruns: service.reruns,
        };
        const run = `${Date.now().toString(36)}-${clients}`;
        const result = await runLoad(service.port, pids, clients, groups, run, withPassword);
        const counters = await projectUsers(service.port);
        const recount = await registrationsPerProject(database.databaseUrl);
        const wrong = [...recount].filter(([group, count]) => counters.get(group) !== count);
        rows.push({
          checkout: checkout.label,
          passwords: withPassword,
          database: kind,
          spread,
          clients,
          ...result,
          counted:
            wrong.length === 0
              ? "= recount"
              : wrong.map(([group, count]) => `${group}: ${counters.get(group)} ≠ ${count}`).join(", "),
        });
        printRow(rows[rows.length - 1]);
        // Which units of work were rerun, and on what: the table's reruns per 1,000, named below it.
        if (service.reruns.count > 0)
          rerunNotes.push(
            `${kind}, ${withPassword ? "passwords" : "no passwords"}, ${spread}, ${clients} clients: ` +
              [...service.reruns.byCause].map(([cause, count]) => `${cause} × ${count}`).join(", "),
          );
      } finally {
        await stopService(service.child);
        database.cleanup();
      }
    }
  }
  return rows;
}

const HEADER =
  "| build | passwords | database | spread | clients | creates/s | create p50 / p99 ms | updates/s | update p50 / p99 ms | failures | counters | CPU ms per create: service, database | CPU ms per update: service, database | reruns per 1,000 creates, updates |";

const cpu = (ms: number | null) => (ms === null ? "–" : ms.toFixed(1));
const failuresOf = (row: Row) =>
  [
    ...[...row.creates.failures].map(([key, count]) => `${count} × create ${key}`),
    ...[...row.updates.failures].map(([key, count]) => `${count} × update ${key}`),
  ].join("; ") || "0";

function printRow(row: Row): void {
  const { creates, updates } = row;
  console.log(
    `| ${row.checkout} | ${row.passwords ? "yes" : "no"} | ${row.database} | ${row.spread} | ${row.clients} | ${creates.perSecond.toFixed(0)} | ${creates.p50.toFixed(0)} / ${creates.p99.toFixed(0)} | ${updates.perSecond.toFixed(0)} | ${updates.p50.toFixed(0)} / ${updates.p99.toFixed(0)} | ${failuresOf(row)} | ${row.counted} | ${cpu(creates.serviceCpu)}, ${cpu(creates.databaseCpu)} | ${cpu(updates.serviceCpu)}, ${cpu(updates.databaseCpu)} | ${creates.rerunsPerThousand.toFixed(1)}, ${updates.rerunsPerThousand.toFixed(1)} |`,
  );
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "regapi-regday-fixture-"));
  const fixtureFile = join(dir, "fixture.json");
  writeFileSync(fixtureFile, JSON.stringify(benchFixture()));
  console.log(
    `registration day: ${CREATES_PER_CLIENT} creates per client, then an update of each; clients ${CLIENTS.join(", ")}`,
  );
  if (PASSWORD_MODES.includes(true)) {
    const floor = await hashingFloor();
    console.log(
      `hashing floor: one password hash with the service's scrypt parameters costs ${floor.cpuMs.toFixed(1)} ms of CPU here ` +
        `(${floor.wallMs.toFixed(1)} ms wall; medians of ${floor.hashes}, one at a time); ` +
        `${floor.cores} cores × 1000 ÷ ${floor.cpuMs.toFixed(1)} = ${floor.perSecond.toFixed(0)} creates/s at most with passwords, whatever else a create costs`,
    );
  }
  console.log(HEADER);
  console.log(HEADER.replace(/[^|]/g, "-").replace(/\|-/g, "|-").replace(/-\|/g, "-|"));
  try {
    for (const withPassword of PASSWORD_MODES)
      for (const kind of DATABASES)
        for (const checkout of checkouts) await measure(checkout, kind, fixtureFile, withPassword);
    if (rerunNotes.length > 0) console.log(`\nreruns by unit of work and error:\n${rerunNotes.join("\n")}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What the machine can hash: the service's own hashPassword (its scrypt parameters), one at a
 * time, the median of several. Its CPU time is what a hash costs a core (a busy machine stretches
 * the wall time, not the work); cores × 1000 ÷ CPU ms is the creates per second that hashing alone
 * allows when every core does nothing else. The wall time is printed beside it.
 */
async function hashingFloor(): Promise<{
  cpuMs: number;
  wallMs: number;
  hashes: number;
  cores: number;
  perSecond: number;
}> {
  const hashes = 15;
  await hashPassword("warm-up");
  const cpuTimes: number[] = [];
  const wallTimes: number[] = [];
  for (let i = 0; i < hashes; i += 1) {
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    await hashPassword(`bench-password-${i}`);
    const cpu = process.cpuUsage(cpuBefore);
    wallTimes.push(performance.now() - started);
    cpuTimes.push((cpu.user + cpu.system) / 1000);
  }
  const median = (values: number[]) => values.sort((x, y) => x - y)[Math.floor(values.length / 2)];
  const cpuMs = median(cpuTimes);
  const cores = cpus().length;
  return { cpuMs, wallMs: median(wallTimes), hashes, cores, perSecond: (cores * 1000) / cpuMs };
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
