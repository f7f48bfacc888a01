import { createConnection } from "mysql2/promise";
import { DataSource } from "typeorm";
import { parseDatabaseUrl, type DatabaseConfig } from "../../src/config/config";
import { buildDataSourceOptions } from "../../src/db/data-source-options";
import { CountingSqlLogger } from "../../src/db/sql-counter";
import { processStateOf, type ProcessState } from "../../src/domain/process-state";

/**
 * The database the suites run against: TEST_DATABASE_URL (e.g. mariadb://root@127.0.0.1:3306/test),
 * default an in-memory SQLite. The same suites run on both.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || "sqlite::memory:";
export const testDatabase: DatabaseConfig = parseDatabaseUrl(TEST_DATABASE_URL);
export const onMysqlFamily = testDatabase.kind !== "sqlite";

// Database-specific tests are chosen up front, so the other database reports them as skipped
// instead of counting an early return as a pass.
export const describeOnMysqlFamily = onMysqlFamily ? describe : describe.skip;
export const itOnMysqlFamily = onMysqlFamily ? it : it.skip;
export const itOnSqlite = onMysqlFamily ? it.skip : it;

export interface TestDatabase {
  dataSource: DataSource;
  /** The process state every context on this database shares (an app's, once one runs on it). */
  state: ProcessState;
  sql: CountingSqlLogger;
  config: DatabaseConfig;
  /** Closes the connection and, on MySQL/MariaDB, drops the file's database. */
  dispose(): Promise<void>;
}

export type MysqlFamilyConfig = Exclude<DatabaseConfig, { kind: "sqlite" }>;

/** A plain mysql2 connection to a test database, outside TypeORM's pool: another session that holds locks or plays one side of a conflict. */
export function openRawConnection(config: MysqlFamilyConfig) {
  const { host, port, user, password, database } = config;
  return createConnection({ host, port, user, password, database });
}

/** Creates (or re-creates empty) the database `<test database>_<suffix>` on the test server; returns its config. */
export async function createMysqlDatabase(suffix: string): Promise<MysqlFamilyConfig> {
  if (testDatabase.kind === "sqlite") throw new Error("chosen for MySQL/MariaDB only");
  const database = `${testDatabase.database}_${suffix}`;
  const { host, port, user, password } = testDatabase;
  const admin = await createConnection({ host, port, user, password });
  await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
  await admin.end();
  return { ...testDatabase, database };
}

/**
 * A fresh, empty, migrated database for one test file. On MySQL/MariaDB each test file gets its
 * own database (`<name>_<pid>_<n>`), created, migrated and dropped again, so files (and several
 * jest runs at once) never share rows.
 */
let openedInThisProcess = 0;

export async function openTestDatabase(): Promise<TestDatabase> {
  const sql = new CountingSqlLogger();
  let config = testDatabase;
  if (config.kind !== "sqlite") {
    openedInThisProcess += 1;
    config = await createMysqlDatabase(`${process.pid}_${openedInThisProcess}`);
  }
  const dataSource = new DataSource(buildDataSourceOptions(config, { logger: sql }));
  await dataSource.initialize();
  if (config.kind !== "sqlite") await dataSource.runMigrations({ transaction: "each" });
  const isolated = config;
  return {
    dataSource,
    state: processStateOf(dataSource),
    sql,
    config,
    async dispose() {
      if (isolated.kind !== "sqlite") await dataSource.query(`DROP DATABASE IF EXISTS \`${isolated.database}\``);
      await dataSource.destroy();
    },
  };
}
