import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataSource } from "typeorm";
import { authenticate } from "../../src/auth/authenticate";
import { hashApiToken } from "../../src/auth/secrets";
import { buildDataSourceOptions } from "../../src/db/data-source-options";
import { ApiAccount, Organization, Person } from "../../src/entities";
import { DEMO_CREDENTIALS } from "../../src/fixtures/demo";
import { MIGRATIONS } from "../../src/migrations";
import {
  createMysqlDatabase,
  itOnMysqlFamily,
  itOnSqlite,
  openTestDatabase,
  type TestDatabase,
} from "../support/database";
import { watchTables } from "../support/tables";
import { outputFields, regapi } from "./support/run-in-process";

const SPEC_EXAMPLE = join(__dirname, "../fixtures/spec-example.json");
const scratch = mkdtempSync(join(tmpdir(), "regapi-cli-"));

/** A JSON file in a scratch folder. */
function writeScratch(name: string, content: string): string {
  const file = join(scratch, name);
  writeFileSync(file, content);
  return file;
}

const readHeaders = (fields: Record<string, string>) => (name: string) =>
  ({ "api-id": fields["Api-Id"], "api-user": fields["Api-User"], "api-token": fields["Api-Token"] })[name];

let fixtures: TestDatabase;
let demo: TestDatabase;
beforeAll(async () => {
  fixtures = await openTestDatabase();
  demo = await openTestDatabase();
});
afterAll(async () => {
  await fixtures.dispose();
  await demo.dispose();
});

describe("regapi load", () => {
  it("refuses a broken copy of the spec example with the member's path, writing nothing", async () => {
    const broken = JSON.parse(readFileSync(SPEC_EXAMPLE, "utf8"));
    broken.organizations[0].projects[0].forms[0].fields[0].type = "txt";
    const file = writeScratch("broken.json", JSON.stringify(broken));
    const tables = await watchTables(fixtures.dataSource);

    const run = await regapi(["load", file], fixtures.dataSource);

    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      'organizations[0].projects[0].forms[0].fields[0].type: unknown field type "txt"; expected one of text, textarea, email, number, date, phone, single_choice, multiple_choice\n',
    );
    await tables.expectNothingWritten();
  });

  it("refuses a file that is not JSON, naming the file, writing nothing", async () => {
    const file = writeScratch("not-json.json", '{ "organizations": [ { "id": 1, } ] }');
    const tables = await watchTables(fixtures.dataSource);
    const run = await regapi(["load", file], fixtures.dataSource);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^${escape(file)}: invalid JSON: .+\\n$`));
    await tables.expectNothingWritten();
  });

  it("refuses a file that does not exist", async () => {
    const file = join(scratch, "missing.json");
    const run = await regapi(["load", file], fixtures.dataSource);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^${escape(file)}: cannot read: .*ENOENT`));
  });

  it("loads the spec example and prints a summary", async () => {
    const run = await regapi(["load", SPEC_EXAMPLE], fixtures.dataSource);
    expect(run).toEqual({
      code: 0,
      stdout: `loaded ${SPEC_EXAMPLE}: 1 organization, 1 API account, 1 project, 3 forms, 1 registered user\n`,
      stderr: "",
    });
    expect(await fixtures.dataSource.manager.findOneByOrFail(Person, { id: 102670540 })).toMatchObject({
      username: "miles@maple.test",
    });
  });

  it("refuses the same file again, naming the first clash, writing nothing", async () => {
    const tables = await watchTables(fixtures.dataSource);
    const run = await regapi(["load", SPEC_EXAMPLE], fixtures.dataSource);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("organizations[0].id: organization 1 already exists in the database\n");
    await tables.expectNothingWritten();
  });
});

describe("regapi demo", () => {
  it("loads the demo and prints credentials that authenticate", async () => {
    const run = await regapi(["demo"], demo.dataSource);
    expect(run.code).toBe(0);
    const printed = outputFields(run.stdout);
    expect(printed).toEqual({
      "Api-Id": DEMO_CREDENTIALS.apiId,
      "Api-User": DEMO_CREDENTIALS.apiUser,
      "Api-Token": DEMO_CREDENTIALS.apiToken,
    });
    await expect(authenticate(demo.dataSource.manager, readHeaders(printed))).resolves.toMatchObject({
      organizationId: 1,
    });
    expect(await demo.dataSource.manager.count(Organization)).toBe(1);
  });

  it("run again, says the demo is already there and prints the credentials, writing nothing", async () => {
    const tables = await watchTables(demo.dataSource);
    const run = await regapi(["demo"], demo.dataSource);
    expect(run).toEqual({
      code: 0,
      stdout:
        'the demo data is already there (organization 1 "Maple Camps")\n' +
        `Api-Id: ${DEMO_CREDENTIALS.apiId}\nApi-User: ${DEMO_CREDENTIALS.apiUser}\nApi-Token: ${DEMO_CREDENTIALS.apiToken}\n`,
      stderr: "",
    });
    await tables.expectNothingWritten();
  });

  it("refuses a database whose organization 1 is not the demo", async () => {
    const run = await regapi(["demo"], fixtures.dataSource);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'organization 1 ("Maple Camps") is already in this database and is not the demo; load the demo into an empty database\n',
    );
  });
});

describe("regapi api-key create", () => {
  it("prints a new token once; it authenticates, and the database holds only its SHA-256", async () => {
    const run = await regapi(["api-key", "create", "--org", "1", "--user", "ci-bot@maple.test"], demo.dataSource);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/not stored/);
    const printed = outputFields(run.stdout);
    expect(printed["Api-User"]).toBe("ci-bot@maple.test");
    expect(printed["Api-Token"]).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const principal = await authenticate(demo.dataSource.manager, readHeaders(printed));
    expect(principal).toEqual({
      apiAccountId: Number(printed["Api-Id"]),
      apiUser: "ci-bot@maple.test",
      organizationId: 1,
      scope: { groupIds: null, operations: null },
    });
    const account = await demo.dataSource.manager.findOneByOrFail(ApiAccount, { id: Number(printed["Api-Id"]) });
    expect(account).toMatchObject({ active: true, tokenHash: hashApiToken(printed["Api-Token"]) });
    expect(await everyStoredValue(demo.dataSource)).not.toContain(printed["Api-Token"]);
  });

  it("makes a different account and token each time", async () => {
    const first = outputFields(
      (await regapi(["api-key", "create", "--org", "1", "--user", "a@maple.test"], demo.dataSource)).stdout,
    );
    const second = outputFields(
      (await regapi(["api-key", "create", "--org", "1", "--user", "a@maple.test"], demo.dataSource)).stdout,
    );
    expect(second["Api-Id"]).not.toBe(first["Api-Id"]);
    expect(second["Api-Token"]).not.toBe(first["Api-Token"]);
  });

  it.each([
    [["--org", "999", "--user", "x@maple.test"], "regapi: organization 999 does not exist\n"],
    [["--org", "1", "--user", "not-an-email"], 'regapi: --user is not an email address: "not-an-email".\n'],
    [["--org", "abc", "--user", "x@maple.test"], /option '--org <id>' argument 'abc' is invalid/],
    [["--org", "1"], /required option '--user <email>' not specified/],
  ])("refuses %j without writing", async (args, message) => {
    const before = await demo.dataSource.manager.count(ApiAccount);
    const run = await regapi(["api-key", "create", ...args], demo.dataSource);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    if (typeof message === "string") expect(run.stderr).toBe(message);
    else expect(run.stderr).toMatch(message);
    expect(await demo.dataSource.manager.count(ApiAccount)).toBe(before);
  });
});

describe("regapi migrate", () => {
  itOnSqlite("synchronizes the schema (SQLite)", async () => {
    const run = await regapi(["migrate"], fixtures.dataSource);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^SQLite: the schema is synchronized from the entities/);
  });

  itOnMysqlFamily("applies the pending migrations (MySQL/MariaDB), which other commands require", async () => {
    const empty = await emptyMysqlDatabase("cli_migrate");
    try {
      const load = await regapi(["load", SPEC_EXAMPLE], empty.dataSource);
      expect(load).toMatchObject({
        code: 1,
        stderr: "the database has pending migrations; run `regapi migrate` first\n",
      });
      const first = await regapi(["migrate"], empty.dataSource);
      expect(first.code).toBe(0);
      const names = MIGRATIONS.map((migration) => migration.name);
      expect(first.stdout).toBe(
        `${names.map((name) => `applied ${name}\n`).join("")}${names.length} migration(s) applied\n`,
      );
      const again = await regapi(["migrate"], empty.dataSource);
      expect(again.stdout).toBe("no pending migrations; the schema is up to date\n");
      expect((await regapi(["load", SPEC_EXAMPLE], empty.dataSource)).code).toBe(0);
    } finally {
      await empty.drop();
    }
  });
});

describe("configuration and usage", () => {
  it("checks the configuration before touching the database", async () => {
    const untouched = new DataSource(buildDataSourceOptions({ kind: "sqlite", file: ":memory:" }));
    const run = await regapi(["demo"], untouched, { env: { PORT: "http" } });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('regapi: invalid configuration: PORT: "http" is not an integer from 0 to 65535\n');
    expect(untouched.isInitialized).toBe(false);
  });

  it("prints help with every command", async () => {
    const run = await regapi(["--help"], demo.dataSource);
    expect(run.code).toBe(0);
    for (const command of ["migrate", "load <fixture.json>", "demo", "org", "api-key", "seed"])
      expect(run.stdout).toContain(command);
  });

  it("every command's --help ends with examples of it, as a user types them (npx regapi …)", async () => {
    /** The command names a help text lists under "Commands:" (without `help`). */
    const subcommands = (help: string) =>
      [...(help.split("\nCommands:\n")[1] ?? "").matchAll(/^ {2}([a-z-]+)/gm)]
        .map((match) => match[1])
        .filter((name) => name !== "help");
    const paths: string[][] = [[]];
    for (let i = 0; i < paths.length; i += 1) {
      const run = await regapi([...paths[i], "--help"], demo.dataSource);
      expect({ path: paths[i], code: run.code }).toEqual({ path: paths[i], code: 0 });
      const examples = run.stdout.split("\nExamples:\n")[1];
      expect({ path: paths[i], examples }).toEqual({ path: paths[i], examples: expect.any(String) });
      const lines = examples.trimEnd().split("\n");
      expect(lines.length).toBeGreaterThanOrEqual(1);
      for (const line of lines) expect(line).toMatch(/^ {2}\$ .*npx regapi /);
      expect(examples).toContain(`npx regapi ${paths[i].join(" ")}`.trimEnd());
      paths.push(...subcommands(run.stdout).map((name) => [...paths[i], name]));
    }
    expect(paths.map((path) => path.join(" "))).toEqual(
      expect.arrayContaining(["migrate", "api-key create", "webhook add", "person erase", "worker", "recount"]),
    );
  });

  it("prints its version (package.json's) with --version and -V, exit 0, without reading the configuration", async () => {
    const { version } = JSON.parse(readFileSync(join(__dirname, "../../package.json"), "utf8"));
    for (const flag of ["--version", "-V"]) {
      const run = await regapi([flag], demo.dataSource, { env: { PORT: "http" } });
      expect(run).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: "" });
    }
  });

  it("refuses an unknown command", async () => {
    const run = await regapi(["frobnicate"], demo.dataSource);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/unknown command 'frobnicate'/);
  });
});

/** Every stored value of every table, as one text (to prove a secret is nowhere in the database). */
async function everyStoredValue(dataSource: DataSource): Promise<string> {
  const parts: string[] = [];
  for (const { tableName } of dataSource.entityMetadatas)
    parts.push(JSON.stringify(await dataSource.query(`SELECT * FROM ${tableName}`)));
  return parts.join("\n");
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A new, empty (unmigrated) MySQL/MariaDB database next to the test database. */
async function emptyMysqlDatabase(suffix: string): Promise<{ dataSource: DataSource; drop(): Promise<void> }> {
  const config = await createMysqlDatabase(`${suffix}_${process.pid}`);
  const dataSource = new DataSource(buildDataSourceOptions(config));
  return {
    dataSource,
    async drop() {
      if (!dataSource.isInitialized) await dataSource.initialize();
      await dataSource.query(`DROP DATABASE IF EXISTS \`${config.database}\``);
      await dataSource.destroy();
    },
  };
}
