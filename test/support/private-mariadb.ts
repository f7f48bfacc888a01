import { spawn } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { createConnection, type ConnectionOptions, type RowDataPacket } from "mysql2/promise";
import { freePort, spawnOwned, waitUntil, type OwnedProcess } from "./processes";

export { freePort } from "./processes";

// Private MariaDB servers for tests: mariadb-install-db into a temporary folder, mariadbd on free
// loopback ports, every process started and stopped by its pid (see docs/testing.md, "Servers a
// test starts"). Small on purpose: a 32 MB buffer pool and an 8 MB redo log; the shared server at
// 127.0.0.1:3306 is never touched.

/** Options every private server gets: small, loopback only, its files inside its folder. */
export const SMALL_SERVER_ARGS = [
  "--bind-address=127.0.0.1",
  "--innodb-buffer-pool-size=32M",
  "--innodb-log-file-size=8M",
  "--max-connections=200",
];

/**
 * Who mariadbd runs as. As root (CI), `mysql`, as a Debian service does: mariadbd refuses root
 * without `--user`, and Galera's rsync state transfer run as root starts an rsync daemon that drops
 * to `nobody`, which then cannot write the joiner's folder. Otherwise the current user.
 */
export function serverAccount(): { user: string; uid: number; gid: number } {
  const me = userInfo();
  if (me.uid !== 0) return { user: me.username, uid: me.uid, gid: me.gid };
  const entry = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .map((line) => line.split(":"))
    .find((fields) => fields[0] === "mysql");
  if (!entry) throw new Error("running as root needs the `mysql` account (the mariadb-server package creates it)");
  return { user: "mysql", uid: Number(entry[2]), gid: Number(entry[3]) };
}

/** A temporary folder the server's account may use (chowned to it when running as root). */
export function serverFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `regapi-${prefix}-`));
  const account = serverAccount();
  if (userInfo().uid === 0) chownSync(dir, account.uid, account.gid);
  return dir;
}

/** Runs a command to the end; rejects with its output when it fails. */
export function run(command: string, args: string[], timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("exit", (code, signal) =>
      code === 0 ? resolve(output) : reject(new Error(`${command} failed (${code ?? signal}):\n${output}`)),
    );
  });
}

/** Creates `path` (if needed) owned by the server's account. */
export function serverOwnedFolder(path: string): string {
  mkdirSync(path, { recursive: true });
  const account = serverAccount();
  if (userInfo().uid === 0) chownSync(path, account.uid, account.gid);
  return path;
}

/**
 * mariadb-install-db into `datadir` (about 1–2 s): system tables, root@localhost without a
 * password, no test db. Every server gets a `--tmpdir` of its own: temporary tables are files
 * named after the server's pid, and in a /tmp shared by every test run (pids wrap around) an
 * install once failed on a temporary table that had vanished.
 */
export async function installDatadir(datadir: string, tmp: string): Promise<void> {
  await run("mariadb-install-db", [
    "--no-defaults",
    `--user=${serverAccount().user}`,
    `--datadir=${datadir}`,
    `--tmpdir=${tmp}`,
    "--auth-root-authentication-method=normal",
    "--skip-test-db",
    "--innodb-buffer-pool-size=32M",
    "--innodb-log-file-size=8M",
  ]);
}

/** The last lines of a server's error log, for a failure message. */
export function logTail(file: string, lines = 25): string {
  if (!existsSync(file)) return "(no error log)";
  return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
}

/** One statement on a connection of its own to 127.0.0.1:`port` as root; bounded by `timeoutMs`. */
export async function queryServer<T = RowDataPacket[]>(
  port: number,
  sql: string,
  params: unknown[] = [],
  timeoutMs = 10_000,
): Promise<T> {
  const connection = await createConnection({ ...rootConnection(port), connectTimeout: Math.min(timeoutMs, 5000) });
  try {
    const [rows] = await connection.query({ sql, values: params, timeout: timeoutMs });
    return rows as T;
  } finally {
    connection.destroy();
  }
}

export function rootConnection(port: number): ConnectionOptions {
  return { host: "127.0.0.1", port, user: "root" };
}

export interface PrivateMariadbOptions {
  /** `--server-id` (default 1). Every server of a replication topology needs its own. */
  serverId?: number;
  /** Binary log with GTIDs in row format (a primary): `--log-bin --binlog-format=ROW --log-slave-updates`. */
  binlog?: boolean;
  /** More mariadbd options, appended last. */
  args?: string[];
}

/** SHOW SLAVE STATUS, the fields a test looks at. */
export interface ReplicaStatus {
  ioRunning: boolean;
  sqlRunning: boolean;
  /**
   * null whenever a thread is stopped or the IO thread is not connected: a replica lagged with
   * STOP SLAVE SQL_THREAD reports null here, not a growing number of seconds.
   */
  secondsBehindMaster: number | null;
  /** GTIDs received by the IO thread. */
  gtidIoPos: string;
  /** GTIDs applied (@@gtid_slave_pos). */
  gtidSlavePos: string;
  lastIoError: string;
  lastSqlError: string;
}

/**
 * A MariaDB server of the test's own (mariadb-install-db into a temporary folder, on a free
 * port), so it can be killed, frozen and restarted without touching the shared one. Started and
 * stopped by its pid only. With `binlog` it is a GTID primary; `replicateFrom(primary)` makes it a
 * GTID replica.
 */
export class PrivateMariadb {
  private server: OwnedProcess | null = null;
  private constructor(
    readonly dir: string,
    readonly port: number,
    readonly options: PrivateMariadbOptions,
  ) {}

  /** Installs and starts a server (about 2–4 s). */
  static async create(options: PrivateMariadbOptions = {}): Promise<PrivateMariadb> {
    const dir = serverFolder("mariadb");
    try {
      await installDatadir(join(dir, "data"), serverOwnedFolder(join(dir, "tmp")));
      for (let attempt = 1; ; attempt++) {
        const server = new PrivateMariadb(dir, await freePort(), options);
        try {
          await server.start();
          return server;
        } catch (error) {
          // Another process took the port between choosing and binding it: choose again.
          if (attempt === 3 || !/Address already in use/.test(String(error))) throw error;
        }
      }
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  get serverId(): number {
    return this.options.serverId ?? 1;
  }

  get pid(): number {
    if (!this.server) throw new Error("not running");
    return this.server.pid;
  }

  get running(): boolean {
    return this.server !== null;
  }

  get errorLog(): string {
    return join(this.dir, "error.log");
  }

  url(database: string): string {
    return `mariadb://root@127.0.0.1:${this.port}/${database}`;
  }

  /** Starts mariadbd on the same folder and port (also after kill() or stop()) and waits until it answers. */
  async start(): Promise<void> {
    if (this.server) throw new Error("already running");
    const binlog = this.options.binlog
      ? ["--log-bin=mariadb-bin", "--binlog-format=ROW", "--log-slave-updates"]
      : ["--skip-log-bin"];
    const server = spawnOwned(
      "mariadbd",
      [
        "--no-defaults",
        `--user=${serverAccount().user}`,
        `--datadir=${join(this.dir, "data")}`,
        `--port=${this.port}`,
        `--socket=${join(this.dir, "mariadb.sock")}`,
        `--pid-file=${join(this.dir, "mariadb.pid")}`,
        `--log-error=${this.errorLog}`,
        `--tmpdir=${join(this.dir, "tmp")}`,
        `--server-id=${this.serverId}`,
        ...SMALL_SERVER_ARGS,
        ...binlog,
        ...(this.options.args ?? []),
      ],
      { folder: this.dir },
    );
    this.server = server;
    let exited = false;
    void server.exited.then(() => (exited = true));
    try {
      await waitUntil(
        `mariadbd on port ${this.port} to answer`,
        async () => {
          if (exited) throw new Error(`mariadbd exited:\n${logTail(this.errorLog)}`);
          await queryServer(this.port, "SELECT 1", [], 1000);
          return true;
        },
        { timeoutMs: 30_000, intervalMs: 100 },
      );
    } catch (error) {
      await this.kill();
      throw error;
    }
  }

  /** Runs one statement as root on a connection of its own and returns its rows. */
  query<T = RowDataPacket[]>(sql: string, params: unknown[] = [], timeoutMs = 10_000): Promise<T> {
    return queryServer<T>(this.port, sql, params, timeoutMs);
  }

  /** SIGSTOP: the server keeps its connections open and answers nothing. */
  freeze(): void {
    this.server?.signal("SIGSTOP");
  }

  thaw(): void {
    this.server?.signal("SIGCONT");
  }

  /** kill -9 (also when frozen); the folder stays, so start() brings it back (crash recovery). */
  async kill(): Promise<void> {
    const server = this.server;
    this.server = null;
    await server?.kill();
  }

  /** A clean shutdown (SIGTERM, about 1 s), waited for; start() brings it back. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.signal("SIGCONT");
    server.signal("SIGTERM");
    const timer = setTimeout(() => void server.kill(), 30_000);
    await server.exited;
    clearTimeout(timer);
    this.server = null;
  }

  /** Kills the server and removes its folder. */
  async remove(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }

  // --- replication (MariaDB GTIDs) ---

  /** @@gtid_binlog_pos: every transaction this server has written to its binary log. */
  async gtidBinlogPos(): Promise<string> {
    const [row] = await this.query<RowDataPacket[]>("SELECT @@gtid_binlog_pos AS pos");
    return String(row.pos);
  }

  /**
   * Makes this server a GTID replica of `primary` (which needs `binlog: true`) and waits until both
   * replication threads run. MASTER_CONNECT_RETRY=1: after the primary restarts, the IO thread
   * reconnects within about a second (the default is 60 s) and continues from its GTID position.
   */
  async replicateFrom(primary: PrivateMariadb): Promise<void> {
    if (!primary.options.binlog) throw new Error("the primary needs binlog: true");
    await this.query(
      `CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${primary.port}, MASTER_USER='root', MASTER_PASSWORD='',` +
        " MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1",
    );
    await this.query("START SLAVE");
    await this.waitForReplicaThreads({ io: true, sql: true });
  }

  async replicaStatus(): Promise<ReplicaStatus> {
    const [row] = await this.query<RowDataPacket[]>("SHOW SLAVE STATUS");
    if (!row) throw new Error("not a replica (SHOW SLAVE STATUS is empty)");
    // SHOW SLAVE STATUS of 10.11 has no Gtid_Slave_Pos column (SHOW ALL SLAVES STATUS has).
    const [applied] = await this.query<RowDataPacket[]>("SELECT @@gtid_slave_pos AS pos");
    const behind = row.Seconds_Behind_Master;
    return {
      ioRunning: row.Slave_IO_Running === "Yes",
      sqlRunning: row.Slave_SQL_Running === "Yes",
      secondsBehindMaster: behind === null || behind === undefined ? null : Number(behind),
      gtidIoPos: String(row.Gtid_IO_Pos ?? ""),
      gtidSlavePos: String(applied.pos),
      lastIoError: String(row.Last_IO_Error ?? ""),
      lastSqlError: String(row.Last_SQL_Error ?? ""),
    };
  }

  /** Waits until the IO and SQL threads are (or are not) running, as asked. */
  async waitForReplicaThreads(want: { io?: boolean; sql?: boolean }, timeoutMs = 15_000): Promise<ReplicaStatus> {
    return waitUntil(
      `replica threads ${JSON.stringify(want)} on port ${this.port}`,
      async () => {
        const status = await this.replicaStatus();
        const ok =
          (want.io === undefined || status.ioRunning === want.io) &&
          (want.sql === undefined || status.sqlRunning === want.sql);
        if (!ok && (status.lastIoError || status.lastSqlError) && want.sql !== false)
          throw new Error(`IO: ${status.lastIoError} SQL: ${status.lastSqlError}`);
        return ok && status;
      },
      { timeoutMs },
    );
  }

  /** Lag on demand: STOP SLAVE SQL_THREAD (the IO thread keeps fetching, nothing is applied). */
  async stopApplying(): Promise<void> {
    await this.query("STOP SLAVE SQL_THREAD");
    await this.waitForReplicaThreads({ sql: false });
  }

  /** START SLAVE SQL_THREAD: applies what was fetched meanwhile. */
  async resumeApplying(): Promise<void> {
    await this.query("START SLAVE SQL_THREAD");
    await this.waitForReplicaThreads({ sql: true });
  }

  /**
   * Lag that Seconds_Behind_Master counts: FLUSH TABLES WITH READ LOCK held on this replica, so the
   * SQL thread runs but waits before each event (the figure grows by one a second from the first
   * write not applied); `release()` lets it apply. A replica lagged with stopApplying() reports
   * null instead.
   */
  async blockApplying(): Promise<{ release(): Promise<void> }> {
    const holder = await createConnection(rootConnection(this.port));
    await holder.query("FLUSH TABLES WITH READ LOCK");
    return {
      release: async () => {
        await holder.query("UNLOCK TABLES");
        await holder.end();
      },
    };
  }

  /**
   * MASTER_GTID_WAIT(position, timeoutSeconds): 0 once this replica has applied `position`, -1 when
   * `timeoutSeconds` (fractions allowed, e.g. 0.2) passed first.
   */
  async waitForGtid(position: string, timeoutSeconds: number): Promise<0 | -1> {
    const [row] = await this.query<RowDataPacket[]>(
      "SELECT MASTER_GTID_WAIT(?, ?) AS result",
      [position, timeoutSeconds],
      timeoutSeconds * 1000 + 10_000,
    );
    return Number(row.result) as 0 | -1;
  }
}

/** A GTID primary (server-id 1, binlog) and its replica (server-id 2), installed and started side by side (about 3–5 s). */
export async function startPrimaryAndReplica(): Promise<{ primary: PrivateMariadb; replica: PrivateMariadb }> {
  const [primary, replica] = await Promise.allSettled([
    PrivateMariadb.create({ serverId: 1, binlog: true }),
    PrivateMariadb.create({ serverId: 2 }),
  ]);
  if (primary.status === "rejected" || replica.status === "rejected") {
    for (const started of [primary, replica]) if (started.status === "fulfilled") await started.value.remove();
    throw primary.status === "rejected" ? primary.reason : (replica as PromiseRejectedResult).reason;
  }
  try {
    await replica.value.replicateFrom(primary.value);
  } catch (error) {
    await Promise.all([primary.value.remove(), replica.value.remove()]);
    throw error;
  }
  return { primary: primary.value, replica: replica.value };
}
