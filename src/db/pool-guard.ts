import mysql2 from "mysql2";
import type { DatabaseConfig, DatabaseConnectionConfig } from "../config/config";

type GetConnectionCallback = (error: Error | null, connection?: { release(): void }) => void;
interface GuardedPool {
  getConnection(callback: GetConnectionCallback): void;
  /** mysql2's idle connections (no public accessor; read defensively, as metrics.ts does). */
  _freeConnections?: { length: number };
  on(event: "connection", listener: (connection: SessionConnection) => void): unknown;
}
interface SessionConnection {
  query(...args: unknown[]): unknown;
  destroy(): void;
}

/**
 * A connection whose statement ran past the client-side timeout is given up: mysql2 reports the
 * timeout but keeps the statement as the connection's current command, so the ROLLBACK that
 * follows, and any statement of the next request handed that connection, would wait behind it for
 * a frozen server, each for another timeout (a request took 13.5 s with the server frozen for
 * 15 s, against about 5 s promised). Destroyed, the pool drops it and every command queued on it
 * fails at once; the next request gets a new connection, bounded by the acquire timeout.
 */
export function destroyOnClientTimeout(connection: SessionConnection): void {
  const query = connection.query.bind(connection);
  connection.query = (...args: unknown[]) => {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === "function") {
      args[last] = (error: (Error & { code?: string }) | null, ...rest: unknown[]) => {
        if (error?.code === "PROTOCOL_SEQUENCE_TIMEOUT") connection.destroy();
        return (callback as (...values: unknown[]) => unknown)(error, ...rest);
      };
    }
    return query(...args);
  };
}

export type DatabaseLimits = Pick<
  DatabaseConnectionConfig,
  "poolSize" | "queueLimit" | "acquireTimeoutMs" | "queryTimeoutMs" | "wsrepSyncWait"
>;

/** Raised when no pooled connection came free in time; classified as "unavailable" (503). */
export class AcquireTimeoutError extends Error {
  readonly code = "DB_ACQUIRE_TIMEOUT";
  constructor(ms: number) {
    super(`No database connection came free within ${ms} ms.`);
  }
}

/**
 * mysql2's pool waits for a free connection without a deadline: with a frozen server every
 * request would hang for the whole outage. This bounds the wait; a connection that arrives after
 * its caller gave up goes straight back to the pool.
 */
export function boundAcquire(pool: GuardedPool, timeoutMs: number): void {
  const getConnection = pool.getConnection.bind(pool);
  pool.getConnection = (callback) => {
    // An idle connection is handed over on the next tick, before any timer could fire: no
    // deadline to arm (and disarm) on the path nearly every statement takes.
    if ((pool._freeConnections?.length ?? 0) > 0) return getConnection(callback);
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      callback(new AcquireTimeoutError(timeoutMs));
    }, timeoutMs);
    getConnection((error, connection) => {
      if (settled) {
        connection?.release();
        return;
      }
      settled = true;
      clearTimeout(timer);
      callback(error, connection);
    });
  };
}

/** The longest JSON list aggregate a statement may return (MariaDB's default max_allowed_packet). */
export const LIST_AGGREGATE_MAX_BYTES = 16 * 1024 * 1024;

/** The statement that caps each statement's run time on the server, per session. */
export function statementTimeoutSql(kind: "mysql" | "mariadb", ms: number): string {
  // MariaDB counts seconds (fractions allowed); MySQL counts milliseconds and caps SELECTs only.
  return kind === "mariadb"
    ? `SET SESSION max_statement_time = ${(ms / 1000).toFixed(3)}`
    : `SET SESSION MAX_EXECUTION_TIME = ${Math.round(ms)}`;
}

/** The statement that makes a Galera session's reads wait for the cluster's earlier commits. */
export function syncWaitSql(value: number): string {
  return `SET SESSION wsrep_sync_wait = ${Math.trunc(value)}`;
}

/**
 * The mysql2 module TypeORM is handed (its `driver` option): the same, except that each pool
 * bounds the wait for a connection and gives every new session the server-side statement limit
 * (and, when configured, Galera's wsrep_sync_wait) before any other statement runs on it.
 */
export function guardedMysqlDriver(kind: "mysql" | "mariadb", limits: DatabaseLimits): typeof mysql2 {
  const createPool = (options: mysql2.PoolOptions) => {
    const pool = mysql2.createPool(options);
    const guarded = pool as unknown as GuardedPool;
    const syncWait = limits.wsrepSyncWait ?? null;
    guarded.on("connection", (connection) => {
      // mysql2 queues commands per connection, so these run before the caller's first statement.
      // JSON lists per row (registration-lists.data.ts, carts.data.ts) are aggregates that the
      // server cuts at group_concat_max_len (1 MiB by default on MariaDB, 1 KiB on MySQL) into
      // invalid JSON: a user's email history alone may hold more. The cap is the packet size.
      connection.query(`SET SESSION group_concat_max_len = ${LIST_AGGREGATE_MAX_BYTES}`, () => undefined);
      if (limits.queryTimeoutMs > 0) {
        destroyOnClientTimeout(connection);
        // A server without the variable (an old MySQL) keeps only the client-side timeout.
        connection.query(statementTimeoutSql(kind, limits.queryTimeoutMs), () => undefined);
      }
      if (syncWait !== null) {
        // A session that cannot promise the configured causal reads must not serve any: the
        // statements queued behind it fail as on a lost connection (503), never read stale rows.
        connection.query(syncWaitSql(syncWait), (error: Error | null) => {
          if (error) connection.destroy();
        });
      }
    });
    boundAcquire(guarded, limits.acquireTimeoutMs);
    return pool;
  };
  return { ...mysql2, createPool } as typeof mysql2;
}

/** Pool and timeout options for TypeORM's MySQL driver. */
export function mysqlLimitOptions(database: Exclude<DatabaseConfig, { kind: "sqlite" }>, limits: DatabaseLimits) {
  return {
    driver: guardedMysqlDriver(database.kind, limits),
    // Client-side: a frozen server never answers, so the server-side limit never fires. Half a
    // second later than the server's, so a busy live server reports its own timeout first.
    ...(limits.queryTimeoutMs > 0
      ? { enableQueryTimeout: true, maxQueryExecutionTime: limits.queryTimeoutMs + 500 }
      : {}),
    poolSize: limits.poolSize,
    // mysql2's `trace` captures a stack trace before every statement to graft onto a failure's
    // driverError (17 µs a statement, the largest single cost of a cheap read). TypeORM wraps
    // each failure in a QueryFailedError whose own stack already holds the async callers, and
    // only the driver error's code and message are read (database-failure.ts, unique-violation.ts).
    extra: { queueLimit: limits.queueLimit, trace: false },
  };
}
