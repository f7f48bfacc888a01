import mysql2 from "mysql2";
import type { DatabaseConfig, DatabaseConnectionConfig } from "../config/config";

type PooledConnection = { release(): void };
type GetConnectionCallback = (error: Error | null, connection?: PooledConnection) => void;
interface GuardedPool {
  getConnection(callback: GetConnectionCallback): void;
  releaseConnection(connection: PooledConnection): void;
  /** mysql2's idle connections (no public accessor; read defensively, as metrics.ts does). */
  _freeConnections?: { length: number };
  on(event: "connection", listener: (connection: SessionConnection) => void): unknown;
}
interface SessionConnection {
  query(...args: unknown[]): unknown;
  destroy(): void;
}

/**
 * Errors after which a pooled connection is given up rather than handed to the next request:
 * - PROTOCOL_SEQUENCE_TIMEOUT, a statement that ran past the client-side timeout: mysql2 reports
 *   the timeout but keeps the statement as the connection's current command, so the ROLLBACK that
 *   follows, and any statement of the next request handed that connection, would wait behind it
 *   for a frozen server, each for another timeout, so one request would wait several timeouts
 *   instead of the one it was promised.
 * - ER_UNKNOWN_COM_ERROR (1047, SQLSTATE 08S01) "WSREP has not yet prepared node for application
 *   use": a Galera node that is shutting down, or cut off from the majority, refuses every
 *   statement; its session is of no use even once HAProxy has moved new connections elsewhere.
 * Destroyed, the pool drops it and every command queued on it fails at once; the next request
 * gets a new connection (through HAProxy, to a node that serves), bounded by the acquire timeout.
 */
const SESSION_LOST = new Set(["PROTOCOL_SEQUENCE_TIMEOUT", "ER_UNKNOWN_COM_ERROR"]);

export function destroyLostSessions(connection: SessionConnection): void {
  const query = connection.query.bind(connection);
  connection.query = (...args: unknown[]) => {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === "function") {
      args[last] = (error: (Error & { code?: string }) | null, ...rest: unknown[]) => {
        if (error?.code !== undefined && SESSION_LOST.has(error.code)) connection.destroy();
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

/** Raised when a waiting request could not start within the acquire timeout; classified as "overloaded" (503). */
export class WaitTooLongError extends Error {
  readonly code = "DB_WAIT_TOO_LONG";
  constructor(expectedMs: number, timeoutMs: number) {
    super(
      `A database connection would come free in about ${Math.round(expectedMs)} ms, past the ${timeoutMs} ms limit.`,
    );
  }
}

/** How many ended stalls WaitEstimate remembers. */
const STALLS_KEPT = 8;

/**
 * How long a waiter would wait for a connection: the waiters ahead of it, served `poolSize` at a
 * time, each holding a connection for the recent mean hold time. The mean is a moving average of
 * hold times measured at release (acquire to release), so it follows what requests cost now, CPU
 * contention of this process included. Until a few holds are measured it does not guess (null):
 * a cold pool admits, and the acquire timeout stays the backstop.
 */
export class WaitEstimate {
  private meanHoldMs = 0;
  private samples = 0;
  private lastReleaseAt = 0;
  /** Since when nothing has come back while requests wait (a stall under way), else null. */
  private stallFrom: number | null = null;
  /**
   * The last stalls that ended, oldest first (disjoint: each starts at a release after the one
   * before ended): the part of a hold that fell in any of them is not the hold's cost. More than
   * the last one: the holds under way through a long stall do not all come back at once, and a
   * pause among their releases (a row lock they queue on) is noted as a short stall of its own;
   * a hold that came through both must still leave the long one out.
   */
  private readonly stalls: { from: number; to: number }[] = [];

  constructor(private readonly poolSize: number) {}

  /**
   * A hold, measured at release. The part of it spent in a stall (see noteWaiting) is left out:
   * a database that answers nothing while a Galera node is evicted makes every hold under way
   * last the whole stall, and a mean of those would refuse, as hopeless, the backlog that the
   * pool works off quickly once the cluster serves again (measured in docs/resilience.md, the
   * Galera node loss).
   */
  recordHold(ms: number, releasedAt = performance.now()): void {
    if (this.stallFrom !== null) {
      this.stalls.push({ from: this.stallFrom, to: releasedAt });
      if (this.stalls.length > STALLS_KEPT) this.stalls.shift();
      this.stallFrom = null;
    }
    const acquiredAt = releasedAt - ms;
    let stalledMs = 0;
    for (const stall of this.stalls)
      stalledMs += Math.max(0, Math.min(releasedAt, stall.to) - Math.max(acquiredAt, stall.from));
    const cost = ms - stalledMs;
    this.samples++;
    this.lastReleaseAt = releasedAt;
    // Weight 1/4: a dozen holds set the mean (the pool's start-up statements, a few ms each, are
    // forgotten); one slow statement moves it by a quarter.
    this.meanHoldMs = this.samples === 1 ? cost : this.meanHoldMs + (cost - this.meanHoldMs) / 4;
  }

  /**
   * Told while requests wait for a connection: when none has come back for twice the mean hold,
   * the database has stalled (a node lost, a frozen server) since the last release, and the
   * holds under way stop measuring what requests cost until one comes back.
   */
  noteWaiting(now = performance.now()): void {
    if (this.stallFrom === null && this.samples >= 5 && now - this.lastReleaseAt > 2 * this.meanHoldMs)
      this.stallFrom = this.lastReleaseAt;
  }

  /**
   * Expected wait of a waiter with `ahead` waiters before it, in ms; null while unmeasured, and
   * null while the pool is not flowing: no connection came back for twice the mean hold. The
   * holds in progress then say nothing about the mean (a server that froze, connections held by
   * long transactions), and a waiter is left to the acquire timeout, which answers "unavailable"
   * rather than "overloaded".
   */
  expectedWaitMs(ahead: number, now = performance.now()): number | null {
    if (this.samples < 5 || now - this.lastReleaseAt > 2 * this.meanHoldMs) return null;
    return Math.floor(ahead / this.poolSize + 1) * this.meanHoldMs;
  }
}

interface Waiter {
  readonly since: number;
  refuse(expectedMs: number): void;
}

/**
 * Who is shed when every connection is busy: a waiter whose age plus expected wait passes the
 * acquire timeout, judged in the queue rather than on arrival. A judgement on arrival is wrong
 * in bursts: while a burst's requests are being read, the saturated event loop returns late to
 * each connection's callbacks, so the holds measured then (and the mean) are inflated, and part
 * of a burst the pool would serve well within the deadline is refused on that mean
 * (BENCHMARKS.md). So a waiter is judged only once it has waited a quarter of the timeout
 * (`judgeAfterMs`), by then on holds measured after the intake, and again every `sweepMs` with
 * its position in the queue as it is then: what cannot start in time is told at that point, a
 * quarter of the way in rather than at the end; what can is kept.
 *
 * Once the queue has shed (real overload, not a passing burst), new arrivals are judged at once
 * for one timeout's length: under sustained overload they would only wait to be refused.
 */
export class WaitQueue {
  private readonly waiters = new Set<Waiter>();
  private sweeper: NodeJS.Timeout | null = null;
  private shedUntil = 0;
  readonly judgeAfterMs: number;
  readonly sweepMs: number;

  constructor(
    private readonly estimate: WaitEstimate,
    private readonly timeoutMs: number,
  ) {
    this.judgeAfterMs = timeoutMs / 4;
    this.sweepMs = Math.max(10, Math.min(50, timeoutMs / 20));
  }

  get size(): number {
    return this.waiters.size;
  }

  /** The expected wait of an arrival that must be refused at once, or null to let it wait. */
  refusalOnArrival(now: number): number | null {
    if (now >= this.shedUntil) return null;
    const expected = this.estimate.expectedWaitMs(this.waiters.size, now);
    return expected !== null && expected > this.timeoutMs ? expected : null;
  }

  add(waiter: Waiter): void {
    this.waiters.add(waiter);
    if (this.sweeper === null) {
      this.sweeper = setInterval(() => this.sweep(performance.now()), this.sweepMs);
      this.sweeper.unref();
    }
  }

  remove(waiter: Waiter): void {
    this.waiters.delete(waiter);
    if (this.waiters.size === 0 && this.sweeper !== null) {
      clearInterval(this.sweeper);
      this.sweeper = null;
    }
  }

  /** Refuses, oldest first, the waiters that cannot start within the timeout. */
  sweep(now: number): void {
    if (this.waiters.size > 0) this.estimate.noteWaiting(now);
    let ahead = 0;
    // Deleting the entry being visited is safe in a Set's iteration.
    for (const waiter of this.waiters) {
      const waited = now - waiter.since;
      // Arrival order: everyone behind is younger still.
      if (waited < this.judgeAfterMs) break;
      const expected = this.estimate.expectedWaitMs(ahead, now);
      if (expected === null) return;
      if (waited + expected > this.timeoutMs) {
        this.shedUntil = now + this.timeoutMs;
        this.remove(waiter);
        waiter.refuse(expected);
      } else {
        ahead++;
      }
    }
  }
}

/**
 * mysql2's pool waits for a free connection without a deadline: with a frozen server every
 * request would hang for the whole outage. This bounds the wait; a connection that arrives after
 * its caller gave up goes straight back to the pool.
 *
 * Admission is by waiting time, not by a count of waiters (WaitQueue): a burst the pool can work
 * through within the timeout is served whatever its size, and what cannot start in time is
 * refused (503 with Retry-After) well before the timeout. The pool's own count bound
 * (DATABASE_QUEUE_LIMIT) is only a memory backstop.
 */
export function boundAcquire(pool: GuardedPool, timeoutMs: number, poolSize = 1): { waiting(): number } {
  const getConnection = pool.getConnection.bind(pool);
  const releaseConnection = pool.releaseConnection.bind(pool);
  const estimate = new WaitEstimate(poolSize);
  const queue = new WaitQueue(estimate, timeoutMs);
  const acquiredAt = new WeakMap<PooledConnection, number>();
  pool.releaseConnection = (connection) => {
    const at = acquiredAt.get(connection);
    if (at !== undefined) {
      acquiredAt.delete(connection);
      estimate.recordHold(performance.now() - at);
    }
    releaseConnection(connection);
  };
  const stamped: (callback: GetConnectionCallback) => GetConnectionCallback = (callback) => (error, connection) => {
    if (connection) acquiredAt.set(connection, performance.now());
    callback(error, connection);
  };
  pool.getConnection = (callback) => {
    // An idle connection is handed over on the next tick, before any timer could fire: no
    // deadline to arm (and disarm) on the path nearly every statement takes.
    if ((pool._freeConnections?.length ?? 0) > 0) return getConnection(stamped(callback));
    const now = performance.now();
    const hopeless = queue.refusalOnArrival(now);
    if (hopeless !== null) {
      process.nextTick(() => callback(new WaitTooLongError(hopeless, timeoutMs)));
      return;
    }
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      queue.remove(waiter);
      clearTimeout(timer);
      return true;
    };
    const waiter: Waiter = {
      since: now,
      refuse: (expected) => {
        if (settle()) callback(new WaitTooLongError(expected, timeoutMs));
      },
    };
    queue.add(waiter);
    const timer = setTimeout(() => {
      if (settle()) callback(new AcquireTimeoutError(timeoutMs));
    }, timeoutMs);
    getConnection((error, connection) => {
      if (!settle()) {
        connection?.release();
        return;
      }
      if (connection) acquiredAt.set(connection, performance.now());
      callback(error, connection);
    });
  };
  return { waiting: () => queue.size };
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
      destroyLostSessions(connection);
      // mysql2 queues commands per connection, so these run before the caller's first statement.
      // JSON lists per row (registration-lists.data.ts, carts.data.ts) are aggregates that the
      // server cuts at group_concat_max_len (1 MiB by default on MariaDB, 1 KiB on MySQL) into
      // invalid JSON: a user's email history alone may hold more. The cap is the packet size.
      connection.query(`SET SESSION group_concat_max_len = ${LIST_AGGREGATE_MAX_BYTES}`, () => undefined);
      if (limits.queryTimeoutMs > 0) {
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
    boundAcquire(guarded, limits.acquireTimeoutMs, limits.poolSize);
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
    // driverError (the largest single cost of a cheap read: BENCHMARKS.md). TypeORM wraps
    // each failure in a QueryFailedError whose own stack already holds the async callers, and
    // only the driver error's code and message are read (database-failure.ts, unique-violation.ts).
    extra: { queueLimit: limits.queueLimit, trace: false },
  };
}
