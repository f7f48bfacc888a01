import { once } from "node:events";
import { mkdtempSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConnection } from "mysql2/promise";
import { DataSource } from "typeorm";
import { DEMO_CREDENTIALS } from "../../src/fixtures/demo";
import { itOnMysqlFamily, testDatabase } from "../support/database";
import { spawnService, startService, stopService, type ServiceProcess } from "./support/service-process";
import { builtService } from "../support/service-build";

// The real process: `node dist/src/main.js` as `npm start` runs it, built once for the run.
jest.setTimeout(120_000);

const running = new Set<ServiceProcess>();
const scratch = mkdtempSync(join(tmpdir(), "regapi-process-"));

afterAll(() => {
  // Only the processes this file started, by their own handle.
  for (const service of running) if (service.child.exitCode === null) service.child.kill("SIGKILL");
});

async function start(env: Record<string, string>) {
  const service = await startService(builtService().mainJs, env);
  running.add(service);
  return service;
}

/** Organizations in a SQLite file the service has left (read directly, schema untouched). */
async function organizationsIn(file: string): Promise<number> {
  const db = new DataSource({ type: "better-sqlite3", database: file, readonly: true });
  await db.initialize();
  try {
    const [row] = (await db.query("SELECT COUNT(*) AS n FROM organization")) as { n: number }[];
    return Number(row.n);
  } finally {
    await db.destroy();
  }
}

const demoLoaded = (line: { msg?: string }) => String(line.msg).includes("demo data loaded");

function getJson(
  port: number,
  path: string,
  agent?: http.Agent,
): Promise<{ status: number; body: unknown; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port, path, agent }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), socket: req.socket! }));
    });
    req.on("error", reject);
  });
}

describe("the service process on an embedded SQLite file", () => {
  const file = join(scratch, "first-start.sqlite");

  it("loads the demo on the first start of an empty database, logs the credentials, answers /readyz and stops on SIGTERM", async () => {
    const service = await start({ DATABASE_URL: `sqlite:${file}` });
    expect(service.lines.find(demoLoaded)).toMatchObject({
      apiId: DEMO_CREDENTIALS.apiId,
      apiUser: DEMO_CREDENTIALS.apiUser,
      apiToken: DEMO_CREDENTIALS.apiToken,
    });
    expect(await getJson(service.port, "/readyz")).toMatchObject({
      status: 200,
      body: { status: "ready", database: "up" },
    });
    expect(await stopService(service)).toEqual({ code: 0, signal: null });
    expect(service.lines.map((line) => line.msg)).toContain("stopped");
    expect(await organizationsIn(file)).toBe(1);
  });

  it("does not load it again on the next start", async () => {
    const service = await start({ DATABASE_URL: `sqlite:${file}` });
    expect(service.lines.find(demoLoaded)).toBeUndefined();
    expect(await stopService(service)).toEqual({ code: 0, signal: null });
    expect(await organizationsIn(file)).toBe(1);
  });

  it("does not load it with DEMO=false", async () => {
    const empty = join(scratch, "no-demo.sqlite");
    const service = await start({ DATABASE_URL: `sqlite:${empty}`, DEMO: "false" });
    expect(service.lines.find(demoLoaded)).toBeUndefined();
    expect(await stopService(service)).toEqual({ code: 0, signal: null });
    expect(await organizationsIn(empty)).toBe(0);
  });
});

describe("the service process", () => {
  it("exits 1 with a message naming PORT when PORT is invalid", async () => {
    const service = spawnService(builtService().mainJs, {
      DATABASE_URL: `sqlite:${join(scratch, "bad-port.sqlite")}`,
      PORT: "99999",
    });
    running.add(service);
    expect(await service.exited).toEqual({ code: 1, signal: null });
    expect(service.stderr()).toBe('regapi: invalid configuration: PORT: "99999" is not an integer from 0 to 65535\n');
  });

  it("on SIGTERM closes idle keep-alive connections, finishes the request in flight, then exits 0", async () => {
    const service = await start({ DATABASE_URL: `sqlite:${join(scratch, "shutdown.sqlite")}` });

    // An idle keep-alive connection: one finished request, the socket left open.
    const agent = new http.Agent({ keepAlive: true });
    const idle = await getJson(service.port, "/healthz", agent);
    expect(idle.status).toBe(200);
    const idleClosed = once(idle.socket, "close");

    // A request in flight: headers sent, body only half. `Expect: 100-continue` makes the server
    // confirm it has taken the request before the signal is sent.
    const body = JSON.stringify({ action: "get_project_list", group_id: 100909072, doc: {} });
    const socket = net.connect(service.port, "127.0.0.1");
    await once(socket, "connect");
    let received = "";
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("utf8")));
    socket.write(
      [
        "POST /reg/api2/projects/ HTTP/1.1",
        "Host: 127.0.0.1",
        "Content-Type: application/json",
        `Content-Length: ${Buffer.byteLength(body)}`,
        `Api-Id: ${DEMO_CREDENTIALS.apiId}`,
        `Api-User: ${DEMO_CREDENTIALS.apiUser}`,
        `Api-Token: ${DEMO_CREDENTIALS.apiToken}`,
        "Expect: 100-continue",
        "",
        "",
      ].join("\r\n"),
    );
    while (!received.includes("100 Continue")) await once(socket, "data");
    socket.write(body.slice(0, 10));

    service.child.kill("SIGTERM");
    await service.waitForLine((line) => String(line.msg).startsWith("shutting down"));
    await idleClosed;
    expect(service.child.exitCode).toBeNull();

    socket.write(body.slice(10));
    const response = await readResponse(socket, () => received);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ success: true });

    expect(await service.exited).toEqual({ code: 0, signal: null });
    const messages = service.lines.map((line) => line.msg);
    expect(messages.indexOf("stopped")).toBeGreaterThan(
      messages.findIndex((msg) => String(msg).startsWith("shutting down")),
    );
    socket.destroy();
    agent.destroy();
  });

  // On SQLite the same rule is checked in-process by bootstrap.test.ts.
  itOnMysqlFamily("on MySQL/MariaDB applies the migrations at start and never loads the demo", async () => {
    if (testDatabase.kind === "sqlite") throw new Error("chosen for MySQL/MariaDB only");
    const database = `${testDatabase.database}_process_${process.pid}`;
    const { host, port, user, password } = testDatabase;
    const admin = await createConnection({ host, port, user, password });
    await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
    try {
      const url = `${testDatabase.kind}://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${host}:${port}/${database}`;
      const service = await start({ DATABASE_URL: url, DEMO: "true" });
      expect(service.lines.find((line) => line.msg === "migrations applied")).toBeDefined();
      expect(service.lines.find(demoLoaded)).toBeUndefined();
      expect(await getJson(service.port, "/readyz")).toMatchObject({ status: 200 });
      expect(await stopService(service)).toEqual({ code: 0, signal: null });
      const [rows] = await admin.query(`SELECT COUNT(*) AS n FROM \`${database}\`.organization`);
      expect(Number((rows as { n: number }[])[0].n)).toBe(0);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await admin.end();
    }
  });
});

/** The final (non-100) HTTP response on a raw socket, once its Content-Length body has arrived. */
async function readResponse(socket: net.Socket, text: () => string): Promise<{ status: number; body: string }> {
  for (;;) {
    const all = text();
    const start = all.lastIndexOf("HTTP/1.1 ");
    const headEnd = all.indexOf("\r\n\r\n", start);
    if (start >= 0 && headEnd > 0 && !all.startsWith("HTTP/1.1 100", start)) {
      const head = all.slice(start, headEnd);
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? NaN);
      const body = all.slice(headEnd + 4);
      if (Buffer.byteLength(body) >= length) return { status: Number(head.slice(9, 12)), body };
    }
    await Promise.race([
      once(socket, "data"),
      once(socket, "close").then(() => Promise.reject(new Error(`connection closed; got:\n${text()}`))),
    ]);
  }
}
