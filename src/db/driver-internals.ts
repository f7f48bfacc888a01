import type { DataSource, QueryRunner } from "typeorm";

// Every reach into members that TypeORM's MySQL driver and mysql2's pool do not publish, in one
// place, each behind a typed accessor. They carry the pooled select path (pooled-select.ts), the
// commit positions (commit-positions.ts), replica leases (replicas.ts), the pool guard
// (pool-guard.ts) and the pool metrics (src/http/metrics.ts). An upgrade of either package that
// renames one of them is caught by `missingDriverInternals()`, which
// test/foundation/driver-internals.test.ts runs against the installed versions.

/** A pooled mysql2 connection, as TypeORM's runner and this service use it. */
export interface PooledConnection {
  query(...args: unknown[]): unknown;
  release(): void;
  destroy(): void;
}

/** mysql2's pool: its public calls and the counts it keeps without a public accessor. */
export interface Mysql2Pool {
  getConnection(callback: (error: Error | null, connection?: PooledConnection) => void): void;
  releaseConnection(connection: PooledConnection): void;
  end(callback?: (error?: Error | null) => void): void;
  on(event: "connection", listener: (connection: PooledConnection) => void): unknown;
  config?: { connectionLimit?: number };
  _allConnections?: { length: number; toArray(): PooledConnection[] };
  _freeConnections?: { length: number };
  _connectionQueue?: { length: number };
}

/** The parts of TypeORM's MysqlDriver used here; not in its public types. */
export interface MysqlDriverInternals {
  pool?: Mysql2Pool;
  mysql: { createPool(options: unknown): Mysql2Pool };
  options: Record<string, unknown> & { maxQueryExecutionTime?: number; enableQueryTimeout?: boolean };
  createConnectionOptions(options: unknown, credentials: unknown): Record<string, unknown>;
  prepareDbConnection(connection: PooledConnection): PooledConnection;
  obtainMasterConnection(): Promise<PooledConnection>;
}

/** The parts of TypeORM's MysqlQueryRunner used here: its connection, which may be chosen before it connects. */
export interface MysqlRunnerInternals {
  databaseConnection?: PooledConnection;
  isReleased: boolean;
}

/** The MySQL/MariaDB driver of `dataSource` with its internal members (meaningless on SQLite). */
export const mysqlDriverOf = (dataSource: DataSource): MysqlDriverInternals =>
  dataSource.driver as unknown as MysqlDriverInternals;

/** The primary pool of a MySQL/MariaDB DataSource; undefined on SQLite or before it is initialized. */
export const mysqlPoolOf = (dataSource: DataSource): Mysql2Pool | undefined =>
  (dataSource.driver as unknown as { pool?: Mysql2Pool }).pool;

/** A MySQL/MariaDB query runner's connection and release state. */
export const runnerInternalsOf = (runner: QueryRunner): MysqlRunnerInternals =>
  runner as unknown as MysqlRunnerInternals;

/** mysql2 pool counts: connections open, idle, requests waiting for one, and the configured size. */
export function poolCounts(pool: Mysql2Pool | undefined): { all: number; idle: number; waiting: number; max: number } {
  return {
    all: pool?._allConnections?.length ?? 0,
    idle: pool?._freeConnections?.length ?? 0,
    waiting: pool?._connectionQueue?.length ?? 0,
    max: pool?.config?.connectionLimit ?? 0,
  };
}

/** Every connection the pool has open now. */
export const poolConnections = (pool: Mysql2Pool): PooledConnection[] => pool._allConnections?.toArray() ?? [];

/**
 * What the installed TypeORM and mysql2 lack of the members above, each named with its owner;
 * empty when everything is there. Builds a DataSource and a pool without connecting.
 */
export function missingDriverInternals(createDataSource: () => DataSource): string[] {
  const missing: string[] = [];
  const dataSource = createDataSource();
  const driver = mysqlDriverOf(dataSource);
  for (const method of ["createConnectionOptions", "prepareDbConnection", "obtainMasterConnection"] as const) {
    if (typeof driver[method] !== "function") missing.push(`TypeORM MysqlDriver.${method}()`);
  }
  if (typeof driver.mysql?.createPool !== "function") missing.push("TypeORM MysqlDriver.mysql.createPool()");
  if (!driver.options || typeof driver.options !== "object") missing.push("TypeORM MysqlDriver.options");
  const runner = dataSource.createQueryRunner();
  if (!("isReleased" in runner)) missing.push("TypeORM MysqlQueryRunner.isReleased");
  // The connection field is set by connect(): the source of connect() must name it.
  const connect = Object.getPrototypeOf(runner).connect as unknown;
  if (typeof connect !== "function" || !String(connect).includes("this.databaseConnection"))
    missing.push("TypeORM MysqlQueryRunner.databaseConnection (set by connect())");
  if (typeof driver.mysql?.createPool === "function") {
    const pool = driver.mysql.createPool({ host: "127.0.0.1", port: 1, connectionLimit: 3 });
    if (typeof pool._allConnections?.toArray !== "function") missing.push("mysql2 Pool._allConnections.toArray()");
    if (typeof pool._freeConnections?.length !== "number") missing.push("mysql2 Pool._freeConnections.length");
    if (typeof pool._connectionQueue?.length !== "number") missing.push("mysql2 Pool._connectionQueue.length");
    if (pool.config?.connectionLimit !== 3) missing.push("mysql2 Pool.config.connectionLimit");
    for (const method of ["getConnection", "releaseConnection", "end", "on"] as const) {
      if (typeof pool[method] !== "function") missing.push(`mysql2 Pool.${method}()`);
    }
    pool.end();
  }
  return missing;
}
