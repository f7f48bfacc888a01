import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { DataSource } from "typeorm";
import { packageRoot } from "../../common/package-root";
import { DEFAULT_DATABASE_CONNECTION, parseDatabaseUrl } from "../../config/config";
import { createDatabaseIfMissing } from "../../db/create-database";
import { buildDataSourceOptions } from "../../db/data-source-options";
import { createRequestContext } from "../../domain/context";
import { processStateOf } from "../../domain/process-state";
import { DEMO_CREDENTIALS, DEMO_FIXTURE } from "../../fixtures/demo";
import { loadFixture } from "../../fixtures/load-fixture";
import type { KindCost } from "./capacity-model";

// What `regapi capacity` measures: the real service process (`npm start`'s node flags,
// NODE_ENV=production) on a scratch database loaded with the demo, sent a fixed number of requests
// of each kind by a few keep-alive clients; the CPU time the service process and the database
// server used meanwhile (Linux /proc) divided by the requests. SQLite runs inside the service, so
// there the database's share is in the service's figure.

const DEMO_GROUP = 100909072;
const FORM = 301;

export interface MeasureOptions {
  /** Requests of each kind measured (after a warm-up of a fifth as many). */
  requests: number;
  /** Concurrent closed-loop clients. */
  clients: number;
  /** A MariaDB/MySQL server URL without a database (its scratch database regapi_capacity is dropped and re-created), or null for SQLite. */
  serverUrl: string | null;
}

export interface Measured {
  database: string;
  /** The database server's pid whose CPU was read, or null (SQLite, or a server on another machine). */
  databasePid: number | null;
  costs: KindCost[];
  /** Requests per second each kind reached (wall clock, with `clients` clients): not a limit, a check. */
  perSecond: Record<string, number>;
}

/** CPU time a thread has run so far, in ms (the scheduler's nanosecond count). */
function threadCpuMs(pid: number, tid: string): number {
  return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
}

/**
 * CPU time of a whole process so far, in ms: the sum over its threads (a thread that ends while
 * the requests run takes its share with it; node's pool threads and the database server's
 * cached connection threads stay).
 */
function processCpuMs(pid: number): number {
  let ms = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ms += threadCpuMs(pid, tid);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ms;
}

/** CPU time of a process's main thread (its event loop, for node) so far, in ms. */
const mainThreadCpuMs = (pid: number) => threadCpuMs(pid, String(pid));

/** The node arguments `npm start` runs the service with (package.json's start script). */
function startFlags(): string[] {
  const scripts = (
    JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as {
      scripts?: { start?: string };
    }
  ).scripts;
  return (scripts?.start ?? "").split(/\s+/).filter((word) => word.startsWith("--"));
}

/** An empty database for the measurement: a SQLite file in a temporary folder, or regapi_capacity on `serverUrl`. */
async function scratchDatabase(serverUrl: string | null): Promise<{ url: string; drop(): Promise<void> }> {
  if (serverUrl === null) {
    const dir = mkdtempSync(join(tmpdir(), "regapi-capacity-"));
    return { url: `sqlite:${join(dir, "capacity.sqlite")}`, drop: async () => rmSync(dir, { recursive: true }) };
  }
  const url = `${serverUrl.replace(/\/+$/, "")}/regapi_capacity`;
  const config = parseDatabaseUrl(url, "--mariadb");
  if (config.kind === "sqlite") throw new Error("--mariadb takes a mariadb:// or mysql:// server URL");
  const connection = { ...DEFAULT_DATABASE_CONNECTION, poolSize: 1 };
  await createDatabaseIfMissing(config, connection);
  const scratch = new DataSource(buildDataSourceOptions(config, { connection }));
  const recreate = async () => {
    await scratch.initialize();
    try {
      await scratch.query("DROP DATABASE IF EXISTS regapi_capacity");
      await scratch.query("CREATE DATABASE regapi_capacity CHARACTER SET utf8mb4");
    } finally {
      await scratch.destroy();
    }
  };
  // A run that was stopped halfway left its rows: start from nothing.
  await recreate();
  return {
    url,
    async drop() {
      await scratch.initialize();
      try {
        await scratch.query("DROP DATABASE IF EXISTS regapi_capacity");
      } finally {
        await scratch.destroy();
      }
    },
  };
}

/** The pid of the database server `dataSource` speaks to, when it runs on this machine and says where its pid file is. */
async function serverPid(dataSource: DataSource): Promise<number | null> {
  try {
    const [{ file }] = (await dataSource.query("SELECT @@pid_file AS file")) as { file: string }[];
    const pid = Number(readFileSync(file, "utf8").trim());
    processCpuMs(pid);
    return pid;
  } catch {
    return null;
  }
}

async function startService(databaseUrl: string): Promise<{ child: ChildProcess; port: number }> {
  const mainJs = join(__dirname, "../../main.js");
  const child = spawn(process.execPath, [...startFlags(), mainJs], {
    env: {
      PATH: process.env.PATH ?? "",
      NODE_ENV: "production",
      DATABASE_URL: databaseUrl,
      HOST: "127.0.0.1",
      PORT: "0",
      DEMO: "false",
      LOG_LEVEL: "info",
      LOG_FORMAT: "json",
      RATE_LIMIT_PER_MINUTE: "0",
      RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: "0",
      DELIVERY_WORKER: "false",
      MAIL_DIR: mkdtempSync(join(tmpdir(), "regapi-capacity-mail-")),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const port = await new Promise<number>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the service exited (${code}) before listening: ${stderr}`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      try {
        const parsed = JSON.parse(line) as { msg?: string; port?: number };
        if (parsed.msg === "listening" && parsed.port) resolve(parsed.port);
      } catch {
        // not a log line
      }
    });
  });
  return { child, port };
}

async function stopService(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

function post(agent: Agent, port: number, path: string, body: unknown): Promise<Record<string, unknown>> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
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
          const text = Buffer.concat(chunks).toString("utf8");
          if (res.statusCode !== 200) reject(new Error(`${path} answered ${res.statusCode}: ${text.slice(0, 300)}`));
          else resolve(JSON.parse(text) as Record<string, unknown>);
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

type Call = (agent: Agent, n: number) => Promise<unknown>;

/** The request kinds measured: a registration with and without a password, writes to it, reads of it. */
function kinds(port: number, registrants: number[]): { kind: string; call: Call }[] {
  const users = (agent: Agent, body: Record<string, unknown>) =>
    post(agent, port, "/reg/api2/users/", { group_id: DEMO_GROUP, ...body });
  const someone = (n: number) => registrants[n % registrants.length];
  const create = (password: boolean) => (agent: Agent, n: number) =>
    users(agent, {
      action: "create",
      doc: {
        main_email: `capacity-${password ? "p" : "n"}${n}-${process.pid}@capacity.test`,
        ...(password ? { password: "capacity-password" } : {}),
        first_name: "Capacity",
        last_name: `Model${n}`,
        [`f_${FORM}_3`]: "M",
      },
    });
  return [
    { kind: "create with password", call: create(true) },
    { kind: "create", call: create(false) },
    {
      kind: "update (one field)",
      call: (agent, n) =>
        users(agent, { action: "update", clogin_id: someone(n), doc: { [`f_${FORM}_3`]: n % 2 ? "L" : "S" } }),
    },
    {
      kind: "add_email",
      call: (agent, n) =>
        users(agent, {
          action: "add_email",
          clogin_id: someone(n),
          doc: { email_list: { from: "office@capacity.test", to: "x@capacity.test", subject: `s${n}`, body: "b" } },
        }),
    },
    { kind: "read (get_info)", call: (agent, n) => users(agent, { action: "get_info", clogin_id: someone(n) }) },
  ];
}

/** Runs `count` calls with `clients` closed-loop clients; returns the wall time in ms. */
async function closedLoop(clients: number, count: number, call: Call, offset: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        while (next < count) await call(agent, offset + next++);
      } finally {
        agent.destroy();
      }
    }),
  );
  return performance.now() - started;
}

export async function measureCapacity(options: MeasureOptions): Promise<Measured> {
  const scratch = await scratchDatabase(options.serverUrl);
  const dataSource = new DataSource(buildDataSourceOptions(parseDatabaseUrl(scratch.url)));
  let service: { child: ChildProcess; port: number } | null = null;
  try {
    await dataSource.initialize();
    await dataSource.runMigrations({ transaction: "each" });
    await loadFixture(createRequestContext(processStateOf(dataSource), "capacity"), DEMO_FIXTURE);
    const databasePid = options.serverUrl === null ? null : await serverPid(dataSource);
    service = await startService(scratch.url);
    const { child, port } = service;
    const agent = new Agent({ keepAlive: true });
    const registrants: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      const answer = await post(agent, port, "/reg/api2/users/", {
        action: "create",
        group_id: DEMO_GROUP,
        doc: { main_email: `capacity-base${i}@capacity.test`, first_name: "Base", last_name: `R${i}` },
      });
      registrants.push(Number((answer.user_info as { clogin_id: string }).clogin_id));
    }
    agent.destroy();

    const costs: KindCost[] = [];
    const perSecond: Record<string, number> = {};
    let offset = 0;
    for (const { kind, call } of kinds(port, registrants)) {
      const warmUp = Math.max(2, Math.round(options.requests / 5));
      await closedLoop(options.clients, warmUp, call, offset);
      offset += warmUp;
      const before = {
        service: processCpuMs(child.pid!),
        eventLoop: mainThreadCpuMs(child.pid!),
        database: databasePid === null ? null : processCpuMs(databasePid),
      };
      const wallMs = await closedLoop(options.clients, options.requests, call, offset);
      offset += options.requests;
      const n = options.requests;
      costs.push({
        kind,
        serviceMs: (processCpuMs(child.pid!) - before.service) / n,
        eventLoopMs: (mainThreadCpuMs(child.pid!) - before.eventLoop) / n,
        databaseMs:
          databasePid === null || before.database === null ? null : (processCpuMs(databasePid) - before.database) / n,
      });
      perSecond[kind] = (n * 1000) / wallMs;
    }
    const database = options.serverUrl === null ? "SQLite (inside the service process)" : scratch.url;
    return { database, databasePid, costs, perSecond };
  } finally {
    if (service) await stopService(service.child);
    if (dataSource.isInitialized) await dataSource.destroy();
    await scratch.drop();
  }
}
