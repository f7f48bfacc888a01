import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { DataSourceOptions } from "typeorm";
import { DEFAULT_DATABASE_CONNECTION, type DatabaseConfig, type DatabaseConnectionConfig } from "../config/config";
import { ENTITIES } from "../entities";
import { MIGRATIONS, SQLITE_MIGRATIONS } from "../migrations";
import { mysqlLimitOptions } from "./pool-guard";
import { CountingSqlLogger } from "./sql-counter";
import { SnakeNamingStrategy } from "./snake-naming.strategy";

export interface DataSourceExtras {
  logger?: CountingSqlLogger;
  /** Pool size, queue bound, timeouts and TLS for MySQL/MariaDB (default: the configuration's defaults). */
  connection?: DatabaseConnectionConfig;
}

export { DEFAULT_DATABASE_CONNECTION };

/** The driver's TLS options: TLS always verifies the server, against the configured CA, else the system's CAs. */
export function tlsOptions(
  connection: DatabaseConnectionConfig,
): { ca?: string; rejectUnauthorized: true } | undefined {
  if (!connection.tls) return undefined;
  return { ...(connection.tls.ca ? { ca: connection.tls.ca } : {}), rejectUnauthorized: true };
}

/**
 * Options for the one DataSource of a process. SQLite synchronizes its schema (embedded, zero
 * setup) and then runs its few migrations itself; MySQL and MariaDB run the committed migrations
 * and never synchronize.
 */
export function buildDataSourceOptions(database: DatabaseConfig, extras: DataSourceExtras = {}): DataSourceOptions {
  const common = {
    entities: ENTITIES,
    namingStrategy: new SnakeNamingStrategy(),
    logger: extras.logger ?? new CountingSqlLogger(),
    logging: ["query", "error"] as ("query" | "error")[],
  };
  if (database.kind === "sqlite") {
    if (database.file !== ":memory:") mkdirSync(dirname(database.file), { recursive: true });
    return {
      ...common,
      type: "better-sqlite3",
      database: database.file,
      synchronize: true,
      // What the entities cannot declare (the search's FTS5 table); each runs outside a
      // transaction, as synchronization does.
      migrations: SQLITE_MIGRATIONS,
      migrationsRun: true,
      migrationsTransactionMode: "none",
      // Foreign keys and WAL: integrity as on MySQL, and readers that do not block the writer.
      prepareDatabase: (db: { pragma: (sql: string) => unknown }) => {
        db.pragma("foreign_keys = ON");
        if (database.file !== ":memory:") db.pragma("journal_mode = WAL");
      },
    };
  }
  const connection = extras.connection ?? DEFAULT_DATABASE_CONNECTION;
  return {
    ...common,
    // "mariadb" makes TypeORM read MariaDB's catalog correctly (no false drift on every compare).
    type: database.kind,
    host: database.host,
    port: database.port,
    username: database.user,
    password: database.password,
    database: database.database,
    charset: "utf8mb4",
    timezone: "Z",
    synchronize: false,
    migrations: MIGRATIONS,
    migrationsTransactionMode: "each",
    ssl: tlsOptions(connection),
    connectTimeout: connection.connectTimeoutMs,
    ...mysqlLimitOptions(database, connection),
  };
}
