import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConnection } from "mysql2/promise";
import { onMysqlFamily, testDatabase } from "../support/database";
import { spawnService, type ServiceProcess } from "./support/service-process";
import { builtService } from "../support/service-build";

// Issue 7 item 7: a port in use, an unreachable database and `npm start` on a fresh build, as a
// new user meets them.
jest.setTimeout(120_000);

const running = new Set<ServiceProcess>();
const scratch = mkdtempSync(join(tmpdir(), "regapi-startup-"));
const databases: string[] = [];

/** A DATABASE_URL the service can start on: a SQLite file, or a fresh MariaDB database of this file. */
async function serviceDatabaseUrl(name: string): Promise<string> {
  if (testDatabase.kind === "sqlite") return `sqlite:${join(scratch, `${name}.sqlite`)}`;
  const { host, port, user, password } = testDatabase;
  const database = `${testDatabase.database}_startup_${name}_${process.pid}`;
  const admin = await createConnection({ host, port, user, password });
  await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
  await admin.end();
  databases.push(database);
  return `${testDatabase.kind}://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${host}:${port}/${database}`;
}

beforeAll(() => {});
afterAll(async () => {
  for (const service of running) if (service.child.exitCode === null) service.child.kill("SIGKILL");
  if (testDatabase.kind !== "sqlite" && databases.length > 0) {
    const { host, port, user, password } = testDatabase;
    const admin = await createConnection({ host, port, user, password });
    for (const database of databases) await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin.end();
  }
});

function spawn(env: Record<string, string>): ServiceProcess {
  const service = spawnService(builtService().mainJs, { HOST: "127.0.0.1", LOG_LEVEL: "info", ...env });
  running.add(service);
  return service;
}

describe(`a port already in use (on ${testDatabase.kind})`, () => {
  it("exits 1 with one line naming the port, without logging that it listens", async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const service = spawn({ DATABASE_URL: await serviceDatabaseUrl("port"), PORT: String(port) });
      expect(await service.exited).toEqual({ code: 1, signal: null });
      expect(service.stderr()).toBe(`regapi: port ${port} is in use (HOST=127.0.0.1); choose another PORT\n`);
      expect(service.lines.map((line) => line.msg)).not.toContain("listening");
    } finally {
      blocker.close();
    }
  });
});

describe("a database that cannot be reached at start", () => {
  it("exits 1 with one line naming DATABASE_URL (password masked) and the cause, no stack", async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const service = spawn({ DATABASE_URL: `mariadb://app:s3cret-pw@127.0.0.1:${port}/regapi`, PORT: "0" });
    expect(await service.exited).toEqual({ code: 1, signal: null });
    expect(service.stderr()).toMatch(
      new RegExp(
        `^regapi: cannot connect to the database at DATABASE_URL=mariadb://app:\\*\\*\\*@127\\.0\\.0\\.1:${port}/regapi: .*ECONNREFUSED.*\\n$`,
      ),
    );
    expect(service.stderr()).not.toContain("s3cret-pw");
  });

  (onMysqlFamily ? it : it.skip)("names a refused login the same way (MariaDB run only)", async () => {
    const { host, port } = testDatabase as { host: string; port: number };
    const service = spawn({ DATABASE_URL: `mariadb://nobody_here:wrong-pw@${host}:${port}/nothing`, PORT: "0" });
    expect(await service.exited).toEqual({ code: 1, signal: null });
    const stderr = service.stderr();
    expect(stderr.split("\n").filter(Boolean)).toHaveLength(1);
    expect(stderr).toMatch(
      /^regapi: cannot connect to the database at DATABASE_URL=mariadb:\/\/nobody_here:\*\*\*@.*Access denied/,
    );
    expect(stderr).not.toContain("wrong-pw");
  });

  it("an SQLite file that cannot be opened is one line too", async () => {
    const blockedDir = join(scratch, "not-a-dir");
    writeFileSync(blockedDir, "a file where a directory is expected");
    const service = spawn({ DATABASE_URL: `sqlite:${join(blockedDir, "db.sqlite")}`, PORT: "0" });
    expect(await service.exited).toEqual({ code: 1, signal: null });
    expect(service.stderr().split("\n").filter(Boolean)).toHaveLength(1);
    expect(service.stderr()).toMatch(
      /^regapi: (cannot connect to the database at DATABASE_URL=sqlite:|failed to start)/,
    );
  });
});

describe("npm start compiles only when sources are newer than the build", () => {
  const script = join(__dirname, "../../bin/build-if-stale.js");
  const check = (root: string) =>
    spawnSync(process.execPath, [script, "--check"], {
      env: { ...process.env, REGAPI_BUILD_ROOT: root },
      encoding: "utf8",
    }).stdout.trim();

  it("is stale without a build, fresh after one, stale again once a source changes", () => {
    const root = mkdtempSync(join(tmpdir(), "regapi-build-"));
    mkdirSync(join(root, "src"));
    writeFileSync(join(root, "src/main.ts"), "export {};");
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(root, "src/main.ts"), past, past);
    utimesSync(join(root, "src"), past, past);
    expect(check(root)).toBe("stale");

    mkdirSync(join(root, "dist/src"), { recursive: true });
    writeFileSync(join(root, "dist/src/main.js"), "");
    expect(check(root)).toBe("fresh");

    const future = new Date(Date.now() + 60_000);
    utimesSync(join(root, "src/main.ts"), future, future);
    expect(check(root)).toBe("stale");
  });

  it("package.json runs it before start and offers a watching dev script", () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { scripts } = require("../../package.json") as { scripts: Record<string, string> };
    expect(scripts.prestart).toBe("node bin/build-if-stale.js");
    expect(scripts.dev).toMatch(/^tsc-watch /);
  });
});
