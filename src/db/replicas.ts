import type { DataSource, QueryRunner } from "typeorm";
import type { DatabaseConfig, ReplicasConfig } from "../config/config";
import { connectionFailureCause } from "./database-failure";
import { formatGtidPosition, gtidPositionCovers, laterGtidPosition, type GtidPosition } from "./gtid";
import type { ReadPositionStore } from "./read-positions";
import { trackCommitPositions } from "./commit-positions";
import { mysqlDriverOf, type Mysql2Pool, type PooledConnection } from "./driver-internals";
import { Replica, ReplicaHealth, type MysqlDatabase, type ReplicaStateName } from "./replica-health";
import { leaseReplicaConnection } from "./replica-lease";

// Read replicas (docs/scale-out.md). Reads that take no lock are served by a healthy replica when
// one is configured; everything else, and every read that cannot be served there in time, by the
// primary (the DataSource's own pool). This module is the one place that picks: a routed read
// borrows a replica connection for its whole request (one statement or a read snapshot), after
// waiting there for the principal's own last write (read-your-writes, MASTER_GTID_WAIT). The
// replicas' health checks are src/db/replica-health.ts; a routed read's connection,
// src/db/replica-lease.ts.

type Pool = Mysql2Pool;

export type { ReplicaStateName };
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

const WAIT_BUCKETS_KEPT = 10_000;
export { failoverReplicaRead, SNAPSHOT_START } from "./replica-lease";

/** Replicas of one DataSource's primary, their health, and the reads routed to them. */
export class ReplicaSet {
  readonly replicas: Replica[];
  private readonly health: ReplicaHealth;
  readonly counters: ReplicaCounters = {
    reads: new Map(),
    fallbacks: new Map(),
    waits: { applied: 0, timedOut: 0, notNeeded: 0 },
    waitSeconds: [],
  };
  private readonly listeners: ((event: "wait", seconds: number) => void)[] = [];
  private cursor = 0;

  constructor(
    private readonly dataSource: DataSource,
    primary: MysqlDatabase,
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
    this.health = new ReplicaHealth(primary, config, this.replicas, this);
  }

  /** Checks every replica now, then every checkIntervalMs in the background. */
  start(): Promise<void> {
    return this.health.start();
  }

  async stop(): Promise<void> {
    this.health.stop();
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

  setState(replica: Replica, state: ReplicaStateName): void {
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
