import mysql2 from "mysql2";
import type { DataSource, QueryRunner } from "typeorm";
import type { DatabaseConfig, ReplicasConfig } from "../config/config";
import { connectionFailureCause } from "./database-failure";
import {
  formatGtidPosition,
  gtidPositionCovers,
  laterGtidPosition,
  parseGtidPosition,
  type GtidPosition,
} from "./gtid";
import type { ReadPositionStore } from "./read-positions";
import { trackCommitPositions } from "./commit-positions";
import { mysqlDriverOf, type Mysql2Pool, type PooledConnection } from "./driver-internals";
import { leaseReplicaConnection } from "./replica-lease";

// Read replicas (docs/scale-out.md). Reads that take no lock are served by a healthy replica when
// one is configured; everything else, and every read that cannot be served there in time, by the
// primary (the DataSource's own pool). This module is the one place that picks: a routed read
// borrows a replica connection for its whole request (one statement or a read snapshot), after
// waiting there for the principal's own last write (read-your-writes, MASTER_GTID_WAIT).

type MysqlDatabase = Exclude<DatabaseConfig, { kind: "sqlite" }>;

type Pool = Mysql2Pool;

export type ReplicaStateName = "starting" | "up" | "lagging" | "down";
export type ReadTarget = "primary" | `replica:${string}`;
export type FallbackReason = "no_replica_in_rotation" | "wait_timed_out" | "replica_failed" | "position_unknown";

/** What /readyz lists for each replica. */
export interface ReplicaReport {
  name: string;
  state: ReplicaStateName;
  lagSeconds: number | null;
  appliedPosition: string | null;
  error: string | null;
}

/** What /metrics reads (counters since start). */
export interface ReplicaCounters {
  reads: Map<ReadTarget, number>;
  fallbacks: Map<FallbackReason, number>;
  /** Read-your-writes waits on a replica, by outcome, and their durations. */
  waits: { applied: number; timedOut: number; notNeeded: number };
  waitSeconds: number[];
}

/** Who reads and which position the request itself asked for (Regapi-Consistency). */
export interface ReadDemand {
  principalKeys: readonly string[];
  requested: GtidPosition | null;
}

/** A read served by a replica: the runner holds its connection until `release`. */
export interface ReplicaLease {
  readonly runner: QueryRunner;
  readonly target: ReadTarget;
  release(): Promise<void>;
}

/** A routed read's outcome: a lease on a replica, or null for the primary, and the position it honours. */
export interface RoutedRead {
  lease: ReplicaLease | null;
  position: GtidPosition | null;
}

class Replica {
  state: ReplicaStateName = "starting";
  lagSeconds: number | null = null;
  applied: GtidPosition | null = null;
  error: string | null = null;
  checker: mysql2.Connection | null = null;

  constructor(
    readonly name: string,
    readonly database: MysqlDatabase,
    readonly pool: Pool,
  ) {}

  get inRotation(): boolean {
    return this.state === "up";
  }
}

const WAIT_BUCKETS_KEPT = 10_000;
export { failoverReplicaRead, SNAPSHOT_START } from "./replica-lease";

/** Replicas of one DataSource's primary, their health, and the reads routed to them. */
export class ReplicaSet {
  readonly replicas: Replica[];
  readonly counters: ReplicaCounters = {
    reads: new Map(),
    fallbacks: new Map(),
    waits: { applied: 0, timedOut: 0, notNeeded: 0 },
    waitSeconds: [],
  };
  private readonly listeners: ((event: "wait", seconds: number) => void)[] = [];
  private cursor = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private primaryChecker: mysql2.Connection | null = null;
  /**
   * The primary's @@gtid_binlog_pos over time, to tell the lag of a replica whose SQL thread is
   * stopped: sampled only while a replica reports no Seconds_Behind_Master, so a healthy set sends
   * the primary nothing.
   */
  private primarySamples: { at: number; position: GtidPosition }[] = [];
  private lagUnknown = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly primary: MysqlDatabase,
    readonly config: ReplicasConfig,
    private readonly positions: ReadPositionStore,
    private readonly onStateChange: (replica: ReplicaReport, previous: ReplicaStateName) => void = () => undefined,
  ) {
    const driver = mysqlDriverOf(dataSource);
    this.replicas = config.databases.map((database) => {
      const options = driver.createConnectionOptions(driver.options, {
        host: database.host,
        port: database.port,
        username: database.user,
        password: database.password,
        database: database.database,
      });
      // The same guarded mysql2 pool as the primary's (statement limit, bounded acquire), created
      // without TypeORM's first connection, so a replica down at start delays nothing.
      return new Replica(`${database.host}:${database.port}`, database, driver.mysql.createPool(options));
    });
  }

  /** Checks every replica now, then every checkIntervalMs in the background. */
  async start(): Promise<void> {
    await this.checkAll();
    const loop = () => {
      this.timer = setTimeout(() => {
        void this.checkAll().finally(() => {
          if (!this.stopped) loop();
        });
      }, this.config.checkIntervalMs);
      this.timer.unref();
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.primaryChecker?.destroy();
    for (const replica of this.replicas) replica.checker?.destroy();
    await Promise.all(this.replicas.map((replica) => new Promise<void>((done) => replica.pool.end(() => done()))));
    await this.positions.close();
  }

  onWait(listener: (event: "wait", seconds: number) => void): void {
    this.listeners.push(listener);
  }

  report(): ReplicaReport[] {
    return this.replicas.map((replica) => ({
      name: replica.name,
      state: replica.state,
      lagSeconds: replica.lagSeconds,
      appliedPosition: replica.applied ? formatGtidPosition(replica.applied) : null,
      error: replica.error,
    }));
  }

  /** The position to report for `demand` without reading anything (a request that reads nothing routed). */
  async positionOf(demand: ReadDemand): Promise<GtidPosition | null> {
    try {
      return laterGtidPosition(await this.positions.get(demand.principalKeys), demand.requested);
    } catch {
      return demand.requested;
    }
  }

  /** Notes a committed write's position for the principals that wrote. */
  async noteWrite(principalKeys: readonly string[], position: GtidPosition): Promise<void> {
    await Promise.all(principalKeys.map((key) => this.positions.note(key, position)));
  }

  /**
   * Where a read that takes no lock runs. A replica in the rotation, taken in turn, once it has
   * applied the principal's last write and the position the request asked for (waiting up to
   * REPLICA_WAIT_MS); otherwise the primary (lease null). Never fails because of a replica: a
   * replica that does not answer leaves the rotation and the read goes elsewhere.
   */
  async route(demand: ReadDemand, snapshot: boolean): Promise<RoutedRead> {
    let wanted: GtidPosition | null;
    try {
      wanted = laterGtidPosition(await this.positions.get(demand.principalKeys), demand.requested);
    } catch {
      // The store (Redis) cannot say what this principal wrote: only the primary is sure to have it.
      return this.onPrimary("position_unknown", demand.requested);
    }
    const candidates = this.replicas.filter((replica) => replica.inRotation);
    if (candidates.length === 0)
      return this.onPrimary(this.replicas.length > 0 ? "no_replica_in_rotation" : null, wanted);
    this.cursor = (this.cursor + 1) % candidates.length;
    for (let i = 0; i < candidates.length; i++) {
      const replica = candidates[(this.cursor + i) % candidates.length];
      let connection: PooledConnection;
      try {
        connection = await getConnection(replica.pool);
      } catch (error) {
        this.markDown(replica, error);
        continue;
      }
      if (wanted && !gtidPositionCovers(replica.applied, wanted)) {
        let outcome: 0 | -1;
        const started = process.hrtime.bigint();
        try {
          outcome = await waitForPosition(connection, wanted, this.config.waitMs);
        } catch (error) {
          connection.destroy();
          this.markDown(replica, error);
          continue;
        }
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        this.noteWait(outcome === 0 ? "applied" : "timedOut", seconds);
        if (outcome !== 0) {
          connection.release();
          return this.onPrimary("wait_timed_out", wanted);
        }
      } else if (wanted) {
        this.counters.waits.notNeeded += 1;
      }
      return { lease: this.lease(replica, connection, snapshot), position: wanted };
    }
    return this.onPrimary("replica_failed", wanted);
  }

  private lease(replica: Replica, connection: PooledConnection, snapshot: boolean): ReplicaLease {
    const target: ReadTarget = `replica:${replica.name}`;
    this.count(target);
    const runner = leaseReplicaConnection(this.dataSource, connection, snapshot, (error) => {
      // The replica went away under this read: the rest of it runs on the primary.
      this.markDown(replica, error);
      this.bump(this.counters.fallbacks, "replica_failed");
    });
    return { runner, target, release: () => runner.release() };
  }

  private onPrimary(reason: FallbackReason | null, position: GtidPosition | null): RoutedRead {
    if (reason) this.bump(this.counters.fallbacks, reason);
    this.count("primary");
    return { lease: null, position };
  }

  private count(target: ReadTarget): void {
    this.bump(this.counters.reads, target);
  }

  private bump<K>(map: Map<K, number>, key: K): void {
    map.set(key, (map.get(key) ?? 0) + 1);
  }

  private noteWait(outcome: "applied" | "timedOut", seconds: number): void {
    this.counters.waits[outcome] += 1;
    if (this.counters.waitSeconds.length < WAIT_BUCKETS_KEPT) this.counters.waitSeconds.push(seconds);
    for (const listener of this.listeners) listener("wait", seconds);
  }

  private setState(replica: Replica, state: ReplicaStateName): void {
    const previous = replica.state;
    replica.state = state;
    if (previous !== state)
      this.onStateChange(
        this.report().find((r) => r.name === replica.name)!,
        previous,
      );
  }

  markDown(replica: Replica, error: unknown): void {
    replica.error = connectionFailureCause(error);
    replica.lagSeconds = null;
    this.setState(replica, "down");
  }

  private async checkAll(): Promise<void> {
    if (this.lagUnknown) await this.samplePrimary();
    else this.forgetPrimary();
    this.lagUnknown = false;
    await Promise.all(this.replicas.map((replica) => this.check(replica)));
  }

  /** No replica needs the primary's samples: they go, and so does the connection they were read on. */
  private forgetPrimary(): void {
    this.primarySamples = [];
    this.primaryChecker?.destroy();
    this.primaryChecker = null;
  }

  private async samplePrimary(): Promise<void> {
    try {
      this.primaryChecker ??= await connect(this.primary, this.config.checkIntervalMs);
      const [row] = await ask(this.primaryChecker, "SELECT @@gtid_binlog_pos AS pos", this.config.checkIntervalMs);
      const position = parseGtidPosition(String(row?.pos ?? ""));
      const now = Date.now();
      if (position) this.primarySamples.push({ at: now, position });
      // Kept a little longer than the largest lag that still matters.
      const horizon = now - (this.config.maxLagSeconds + 5) * 1000;
      while (this.primarySamples.length > 1 && this.primarySamples[1].at < horizon) this.primarySamples.shift();
    } catch {
      this.primaryChecker?.destroy();
      this.primaryChecker = null;
    }
  }

  /**
   * One replica's state: down when it does not answer within the check interval or is not
   * replicating; lagging when further behind than REPLICA_MAX_LAG_S; up otherwise. The lag is
   * Seconds_Behind_Master; where that is NULL (a stopped SQL thread, an IO thread reconnecting),
   * how long the primary has held a transaction the replica has not applied.
   */
  private async check(replica: Replica): Promise<void> {
    try {
      replica.checker ??= await connect(replica.database, this.config.checkIntervalMs);
      const [status] = await ask(replica.checker, "SHOW ALL SLAVES STATUS", this.config.checkIntervalMs);
      if (!status) throw new Error("not a replica: SHOW ALL SLAVES STATUS is empty");
      replica.applied = parseGtidPosition(String(status.Gtid_Slave_Pos ?? ""));
      const behind = status.Seconds_Behind_Master;
      const unknown = behind === null || behind === undefined;
      // From the next check on, the primary is sampled (while any replica's lag stays unknown).
      if (unknown) this.lagUnknown = true;
      replica.lagSeconds = unknown ? this.estimatedLag(replica.applied) : Number(behind);
      replica.error =
        [status.Last_IO_Error, status.Last_SQL_Error].filter((text) => typeof text === "string" && text).join("; ") ||
        null;
      this.setState(
        replica,
        replica.lagSeconds !== null && replica.lagSeconds > this.config.maxLagSeconds ? "lagging" : "up",
      );
    } catch (error) {
      replica.checker?.destroy();
      replica.checker = null;
      this.markDown(replica, error);
    }
  }

  private estimatedLag(applied: GtidPosition | null): number | null {
    if (this.primarySamples.length === 0) return null;
    const first = this.primarySamples.find((sample) => !gtidPositionCovers(applied, sample.position));
    return first ? Math.floor((Date.now() - first.at) / 1000) : 0;
  }
}

/**
 * A replica set for this DataSource's lock-free reads over `config`'s replicas, started (its
 * health checks running); undefined without replicas. The caller stops it.
 */
export async function startReplicaSet(
  dataSource: DataSource,
  primary: DatabaseConfig,
  config: ReplicasConfig,
  positions: ReadPositionStore,
  onStateChange?: (replica: ReplicaReport, previous: ReplicaStateName) => void,
): Promise<ReplicaSet | undefined> {
  if (config.databases.length === 0 || primary.kind === "sqlite") return undefined;
  const set = new ReplicaSet(dataSource, primary, config, positions, onStateChange);
  trackCommitPositions(dataSource);
  await set.start();
  return set;
}

function getConnection(pool: Pool): Promise<PooledConnection> {
  return new Promise((resolve, reject) =>
    pool.getConnection((error, connection) => (error || !connection ? reject(error) : resolve(connection))),
  );
}

/** MASTER_GTID_WAIT on the replica connection itself: 0 applied, -1 timed out. Not a request's statement. */
async function waitForPosition(connection: PooledConnection, position: GtidPosition, waitMs: number): Promise<0 | -1> {
  const rows = await new Promise<unknown>((resolve, reject) =>
    connection.query(
      "SELECT MASTER_GTID_WAIT(?, ?) AS outcome",
      [formatGtidPosition(position), waitMs / 1000],
      (error: Error | null, result?: unknown) => (error ? reject(error) : resolve(result)),
    ),
  );
  return Number((rows as { outcome: unknown }[])[0]?.outcome) === 0 ? 0 : -1;
}

function connect(database: MysqlDatabase, timeoutMs: number): Promise<mysql2.Connection> {
  return new Promise((resolve, reject) => {
    const connection = mysql2.createConnection({
      host: database.host,
      port: database.port,
      user: database.user,
      password: database.password,
      connectTimeout: Math.max(timeoutMs, 1000),
    });
    connection.once("connect", () => resolve(connection));
    // Also after connecting: a replica killed later reports here, and the next check reconnects.
    connection.on("error", (error) => {
      connection.destroy();
      reject(error);
    });
  });
}

function ask(connection: mysql2.Connection, sql: string, timeoutMs: number): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) =>
    connection.query({ sql, timeout: Math.max(timeoutMs, 1000) }, (error, rows) =>
      error ? reject(error) : resolve(rows as Record<string, unknown>[]),
    ),
  );
}
