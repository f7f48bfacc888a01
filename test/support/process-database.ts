import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataSource } from "typeorm";
import { buildDataSourceOptions } from "../../src/db/data-source-options";
import { createRequestContext } from "../../src/domain/context";
import { processStateOf } from "../../src/domain/process-state";
import { loadFixture } from "../../src/fixtures/load-fixture";
import { testFixture } from "../fixtures/test-fixture";
import { createMysqlDatabase, onMysqlFamily } from "./database";

/** A database a test shares with a child process (a service or `regapi worker`), given by URL. */
export interface ProcessDatabase {
  /** DATABASE_URL for the child process. */
  databaseUrl: string;
  /** The test's own connection to the same database. */
  dataSource: DataSource;
  /** Drops the database (MariaDB) or removes its folder (SQLite). */
  remove(): Promise<void>;
}

/**
 * A fresh database on the test's engine (a MariaDB database named after `name`, or an SQLite file
 * in a temporary folder), migrated and holding the test fixture.
 */
export async function openProcessDatabase(name: string): Promise<ProcessDatabase> {
  let databaseUrl: string;
  let dataSource: DataSource;
  let sqliteFolder: string | null = null;
  if (onMysqlFamily) {
    const config = await createMysqlDatabase(`${name}_${process.pid}`);
    databaseUrl = `mariadb://${config.user}${config.password ? `:${config.password}` : ""}@${config.host}:${config.port}/${config.database}`;
    dataSource = new DataSource(buildDataSourceOptions(config));
    await dataSource.initialize();
    await dataSource.runMigrations({ transaction: "each" });
  } else {
    sqliteFolder = mkdtempSync(join(tmpdir(), `regapi-${name}-`));
    const file = join(sqliteFolder, `${name}.sqlite`);
    databaseUrl = `sqlite:${file}`;
    dataSource = new DataSource(buildDataSourceOptions({ kind: "sqlite", file }));
    await dataSource.initialize();
  }
  await loadFixture(createRequestContext(processStateOf(dataSource), "fixture"), testFixture());
  return {
    databaseUrl,
    dataSource,
    async remove() {
      if (onMysqlFamily) await dataSource.query(`DROP DATABASE IF EXISTS \`${dataSource.options.database}\``);
      await dataSource.destroy();
      if (sqliteFolder) rmSync(sqliteFolder, { recursive: true, force: true });
    },
  };
}
