import mysql2 from "mysql2";
import type { DatabaseConfig, ReplicasConfig } from "../config/config";
import type { Mysql2Pool } from "./driver-internals";
import { gtidPositionCovers, parseGtidPosition, type GtidPosition } from "./gtid";

// The health part of the read replicas (src/db/replicas.ts routes reads over them; src/db/replica-lease.ts
// holds a routed read's connection): every REPLICA_CHECK_INTERVAL_MS each replica is asked how far
// behind it is, on a connection of its own, and put in or out of the rotation.

export type MysqlDatabase = Exclude<DatabaseConfig, { kind: "sqlite" }>;

export type ReplicaStateName = "starting" | "up" | "lagging" | "down";

/** Where the checks report a replica's state (the replica set, which tells its listeners). */
export interface ReplicaStates {
  setState(replica: Replica, state: ReplicaStateName): void;
  markDown(replica: Replica, error: unknown): void;
}

export class Replica {
  state: ReplicaStateName = "starting";
  lagSeconds: number | null = null;
  applied: GtidPosition | null = null;
  error: string | null = null;
  checker: mysql2.Connection | null = null;

  constructor(
    readonly name: string,
    readonly database: MysqlDatabase,
    readonly pool: Mysql2Pool,
  ) {}

  get inRotation(): boolean {
    return this.state === "up";
  }
}

/** The checks of a set of replicas, in the background, until stopped. */
export class ReplicaHealth {
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
    private readonly primary: MysqlDatabase,
    private readonly config: ReplicasConfig,
    private readonly replicas: readonly Replica[],
    private readonly states: ReplicaStates,
  ) {}

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

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.primaryChecker?.destroy();
    for (const replica of this.replicas) replica.checker?.destroy();
  }

  async checkAll(): Promise<void> {
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
      this.states.setState(
        replica,
        replica.lagSeconds !== null && replica.lagSeconds > this.config.maxLagSeconds ? "lagging" : "up",
      );
    } catch (error) {
      replica.checker?.destroy();
      replica.checker = null;
      this.states.markDown(replica, error);
    }
  }

  private estimatedLag(applied: GtidPosition | null): number | null {
    if (this.primarySamples.length === 0) return null;
    const first = this.primarySamples.find((sample) => !gtidPositionCovers(applied, sample.position));
    return first ? Math.floor((Date.now() - first.at) / 1000) : 0;
  }
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
