import { spawn } from "node:child_process";
import { createConnection, type Connection } from "mysql2/promise";
import { MIGRATIONS } from "../../src/migrations";
import { describeOnMysqlFamily, testDatabase, type MysqlFamilyConfig } from "../support/database";
import { builtService } from "../support/service-build";

// `regapi migrate` on a MySQL/MariaDB database that does not exist yet, as a new operator meets
// it: the real CLI process with only DATABASE_URL set. It creates the database and says so; an
// account that may not create databases is told what to ask for, and nothing is created.

jest.setTimeout(120_000);

const server = testDatabase as MysqlFamilyConfig;
const missing = `${server.database}_created_by_migrate_${process.pid}`;
const limitedUser = `regapi_nocreate_${process.pid}`;
const limitedPassword = "no-create-pw";
const HOSTS = ["localhost", "127.0.0.1"];

/** `regapi <args>` as a process, with DATABASE_URL only (and PATH); its exit code and output. */
function regapiProcess(
  databaseUrl: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [builtService().cliJs, ...args], {
    env: { PATH: process.env.PATH ?? "", DATABASE_URL: databaseUrl },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

const urlOf = (user: string, password: string, database: string) =>
  `${server.kind}://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${server.host}:${server.port}/${database}`;

async function databaseExists(admin: Connection, name: string): Promise<boolean> {
  const [rows] = await admin.query("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", [name]);
  return (rows as unknown[]).length === 1;
}

describeOnMysqlFamily("regapi migrate on a database that does not exist", () => {
  let admin: Connection;
  beforeAll(async () => {
    admin = await createConnection({
      host: server.host,
      port: server.port,
      user: server.user,
      password: server.password,
    });
    await admin.query(`DROP DATABASE IF EXISTS \`${missing}\``);
  });
  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS \`${missing}\``);
    for (const host of HOSTS) await admin.query(`DROP USER IF EXISTS '${limitedUser}'@'${host}'`);
    await admin.end();
  });

  it("creates it (utf8mb4), says so, and applies every migration; a second run finds it up to date", async () => {
    const url = urlOf(server.user, server.password, missing);
    const first = await regapiProcess(url, ["migrate"]);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const names = MIGRATIONS.map((migration) => migration.name);
    expect(first.stdout).toBe(
      `created database ${missing} at ${server.host}:${server.port} (utf8mb4)\n` +
        `${names.map((name) => `applied ${name}\n`).join("")}${names.length} migration(s) applied\n`,
    );
    const [charset] = (await admin.query(
      "SELECT DEFAULT_CHARACTER_SET_NAME AS charset FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?",
      [missing],
    )) as unknown as [{ charset: string }[]];
    expect(charset).toEqual([{ charset: "utf8mb4" }]);
    const again = await regapiProcess(url, ["migrate"]);
    expect(again).toEqual({ code: 0, stdout: "no pending migrations; the schema is up to date\n", stderr: "" });
  });

  it("explains, exits 1 and creates nothing when the account may not create databases", async () => {
    const target = `${missing}_limited`;
    for (const host of HOSTS) {
      await admin.query(`CREATE USER '${limitedUser}'@'${host}' IDENTIFIED BY '${limitedPassword}'`);
      // Some privileges elsewhere, none to create databases.
      await admin.query(`GRANT SELECT ON \`${server.database}\`.* TO '${limitedUser}'@'${host}'`);
    }
    const run = await regapiProcess(urlOf(limitedUser, limitedPassword, target), ["migrate"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      `regapi: database \`${target}\` at ${server.host}:${server.port}: the account "${limitedUser}" may not use it ` +
        "(it is missing, or the account has no privileges on it), so regapi migrate cannot create it; " +
        `ask an administrator to run: CREATE DATABASE \`${target}\` CHARACTER SET utf8mb4; ` +
        `GRANT ALL PRIVILEGES ON \`${target}\`.* TO '${limitedUser}'@'<its host>'; ` +
        "or point DATABASE_URL at a database that exists\n",
    );
    expect(run.stderr).not.toContain(limitedPassword);
    expect(await databaseExists(admin, target)).toBe(false);

    // An account that may read every database but create none is told the database is missing.
    for (const host of HOSTS) await admin.query(`GRANT SELECT ON *.* TO '${limitedUser}'@'${host}'`);
    const seesAll = await regapiProcess(urlOf(limitedUser, limitedPassword, target), ["migrate"]);
    expect(seesAll.code).toBe(1);
    expect(seesAll.stderr).toMatch(
      new RegExp(
        `^regapi: database \`${target}\` does not exist at ${server.host}:${server.port}, and the account "${limitedUser}" may not create it \\(.*Access denied.*\\); ask an administrator to run: CREATE DATABASE`,
      ),
    );
    expect(await databaseExists(admin, target)).toBe(false);
  });

  it("another command on a missing database names it and points at regapi migrate", async () => {
    const run = await regapiProcess(urlOf(server.user, server.password, `${missing}_absent`), ["org", "list"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `regapi: Unknown database '${missing}_absent'; \`regapi migrate\` creates it and its schema\n`,
    );
  });
});
