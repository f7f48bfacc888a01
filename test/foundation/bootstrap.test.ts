import { DataSource } from "typeorm";
import type { DatabaseConfig } from "../../src/config/config";
import { buildDataSourceOptions } from "../../src/db/data-source-options";
import { prepareDatabase } from "../../src/prepare-database";
import { Organization } from "../../src/entities";
import { DEMO_CREDENTIALS } from "../../src/fixtures/demo";
import { createLogger } from "../../src/http/logger";
import { MIGRATIONS } from "../../src/migrations";
import { createMysqlDatabase, itOnMysqlFamily, itOnSqlite, testDatabase } from "../support/database";

/** A logger whose lines are kept for the assertions. */
function memoryLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger("info", {
    write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
  });
  return { logger, lines };
}

/** A brand-new empty database: a fresh in-memory SQLite, or a new MySQL/MariaDB database. */
async function emptyDatabase(
  suffix: string,
): Promise<{ config: DatabaseConfig; dataSource: DataSource; drop(): Promise<void> }> {
  if (testDatabase.kind === "sqlite") {
    const config: DatabaseConfig = { kind: "sqlite", file: ":memory:" };
    const dataSource = new DataSource(buildDataSourceOptions(config));
    return { config, dataSource, drop: () => dataSource.destroy() };
  }
  const config = await createMysqlDatabase(`${suffix}_${process.pid}`);
  const dataSource = new DataSource(buildDataSourceOptions(config));
  return {
    config,
    dataSource,
    async drop() {
      await dataSource.query(`DROP DATABASE IF EXISTS \`${config.database}\``);
      await dataSource.destroy();
    },
  };
}

const demoLine = (lines: Record<string, unknown>[]) =>
  lines.find((line) => String(line.msg).includes("demo data loaded"));

describe("prepareDatabase", () => {
  itOnMysqlFamily("on MySQL/MariaDB applies the migrations and never loads the demo, even with DEMO=true", async () => {
    const db = await emptyDatabase("bootstrap");
    try {
      const { logger, lines } = memoryLogger();
      await prepareDatabase(db.dataSource, { database: db.config, demo: true }, logger);
      expect(lines.find((line) => line.msg === "migrations applied")?.migrations).toEqual(
        // Every committed migration, in order (their class names).
        MIGRATIONS.map((migration) => migration.name),
      );
      expect(await db.dataSource.manager.count(Organization)).toBe(0);
      expect(demoLine(lines)).toBeUndefined();
      // A second start finds nothing to apply and still loads nothing.
      await prepareDatabase(db.dataSource, { database: db.config, demo: true }, memoryLogger().logger);
      expect(await db.dataSource.manager.count(Organization)).toBe(0);
    } finally {
      await db.drop();
    }
  });

  itOnSqlite("on an empty SQLite database loads the demo once and logs its credentials", async () => {
    const db = await emptyDatabase("bootstrap");
    try {
      const first = memoryLogger();
      await prepareDatabase(db.dataSource, { database: db.config, demo: true }, first.logger);
      expect(demoLine(first.lines)).toMatchObject({
        apiId: DEMO_CREDENTIALS.apiId,
        apiUser: DEMO_CREDENTIALS.apiUser,
        apiToken: DEMO_CREDENTIALS.apiToken,
      });
      expect(await db.dataSource.manager.count(Organization)).toBe(1);

      const second = memoryLogger();
      await prepareDatabase(db.dataSource, { database: db.config, demo: true }, second.logger);
      expect(demoLine(second.lines)).toBeUndefined();
      expect(await db.dataSource.manager.count(Organization)).toBe(1);
    } finally {
      await db.drop();
    }
  });

  it("with DEMO=false leaves an empty database empty", async () => {
    const db = await emptyDatabase("bootstrap_nodemo");
    try {
      const { logger, lines } = memoryLogger();
      await prepareDatabase(db.dataSource, { database: db.config, demo: false }, logger);
      expect(db.dataSource.isInitialized).toBe(true);
      expect(await db.dataSource.manager.count(Organization)).toBe(0);
      expect(demoLine(lines)).toBeUndefined();
    } finally {
      await db.drop();
    }
  });
});
