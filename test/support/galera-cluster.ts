import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { RowDataPacket } from "mysql2/promise";
import {
  SMALL_SERVER_ARGS,
  installDatadir,
  logTail,
  queryServer,
  run,
  serverAccount,
  serverFolder,
  serverOwnedFolder,
} from "./private-mariadb";
import { freePorts, spawnOwned, waitUntil, type OwnedProcess } from "./processes";

// A private MariaDB Galera cluster on loopback ports (galera-4 from Debian): node 1 bootstraps the
// cluster, the others join one after another with an rsync state transfer (SST). Every port (SQL,
// group communication, IST, SST) is a free loopback port; every node is started and stopped by its
// pid. Costs measured on the 2-core CI machine: about 10 s to start three nodes, 2.5 s until a
// killed or frozen node is evicted, 4 s for a killed node to rejoin with IST.

export const GALERA_PROVIDER = "/usr/lib/galera/libgalera_smm.so";

/** wsrep_local_state values (wsrep_local_state_comment in brackets). */
export const WSREP_STATE = { joining: 1, donor: 2, joined: 3, synced: 4 } as const;

/**
 * Group-communication timeouts for tests, about 2.5 times shorter than Galera's defaults
 * (keepalive 1 s, suspect 5 s, inactive 15 s, install 7.5 s): a killed or frozen node leaves the
 * cluster after about 2.5 s instead of 6–7 s, and the writes the other nodes hold while it is
 * suspected stall that long. Not shorter: on two busy cores a node that misses keepalives for
 * under 2 s must not be evicted by mistake.
 */
export const TEST_TIMEOUTS = [
  "evs.keepalive_period=PT0.5S",
  "evs.inactive_check_period=PT0.5S",
  "evs.suspect_timeout=PT2S",
  "evs.inactive_timeout=PT4S",
  "evs.install_timeout=PT3S",
  "evs.join_retrans_period=PT0.5S",
  "pc.announce_timeout=PT1S",
].join(";");

export interface GaleraOptions {
  /** Number of nodes (default 3). */
  size?: number;
  /** wsrep provider options appended to the ports and gcache (default TEST_TIMEOUTS; "" for Galera's defaults). */
  providerOptions?: string;
  /** More mariadbd options for every node. */
  args?: string[];
}

/** What a node reports about itself and its cluster. */
export interface NodeState {
  /** wsrep_local_state: 4 = Synced. */
  localState: number;
  localStateComment: string;
  clusterSize: number;
  /** wsrep_cluster_status: Primary, non-Primary or Disconnected. */
  clusterStatus: string;
  ready: boolean;
}

interface NodePorts {
  sql: number;
  gmcast: number;
  ist: number;
  sst: number;
}

export class GaleraNode {
  private server: OwnedProcess | null = null;
  /** How the last start() got its state: "bootstrap", "SST", "IST" or "none" (read from the error log). */
  lastTransfer: "bootstrap" | "SST" | "IST" | "none" | "unknown" = "unknown";
  /** Recoveries of the last committed position that failed (the node then rejoined by SST). */
  readonly recoveryFailures: string[] = [];
  /** How long the last start() took until Synced, recovery included (ms). */
  lastStartMs = 0;

  constructor(
    readonly cluster: GaleraCluster,
    readonly index: number,
    readonly ports: NodePorts,
  ) {}

  get name(): string {
    return `node${this.index}`;
  }

  /** The SQL port. */
  get port(): number {
    return this.ports.sql;
  }

  get datadir(): string {
    return join(this.cluster.dir, this.name);
  }

  get errorLog(): string {
    return join(this.cluster.dir, `${this.name}.err`);
  }

  get pid(): number {
    if (!this.server) throw new Error(`${this.name} is not running`);
    return this.server.pid;
  }

  get running(): boolean {
    return this.server !== null;
  }

  url(database: string): string {
    return `mariadb://root@127.0.0.1:${this.port}/${database}`;
  }

  query<T = RowDataPacket[]>(sql: string, params: unknown[] = [], timeoutMs = 10_000): Promise<T> {
    return queryServer<T>(this.port, sql, params, timeoutMs);
  }

  private args(): string[] {
    const { cluster } = this;
    const provider = [
      `gmcast.listen_addr=tcp://127.0.0.1:${this.ports.gmcast}`,
      `ist.recv_addr=127.0.0.1:${this.ports.ist}`,
      "gcache.size=32M",
      cluster.providerOptions,
    ].filter((option) => option !== "");
    return [
      "--no-defaults",
      `--user=${serverAccount().user}`,
      `--datadir=${this.datadir}`,
      `--port=${this.ports.sql}`,
      `--socket=${join(cluster.dir, `${this.name}.sock`)}`,
      `--pid-file=${join(cluster.dir, `${this.name}.pid`)}`,
      `--tmpdir=${join(cluster.dir, `${this.name}.tmp`)}`,
      ...SMALL_SERVER_ARGS,
      "--wsrep-on=ON",
      `--wsrep-provider=${GALERA_PROVIDER}`,
      "--wsrep-cluster-name=regapi-test",
      `--wsrep-cluster-address=gcomm://${cluster.nodes.map((node) => `127.0.0.1:${node.ports.gmcast}`).join(",")}`,
      `--wsrep-node-name=${this.name}`,
      `--wsrep-node-address=127.0.0.1:${this.ports.gmcast}`,
      `--wsrep-node-incoming-address=127.0.0.1:${this.ports.sql}`,
      "--wsrep-sst-method=rsync",
      `--wsrep-sst-receive-address=127.0.0.1:${this.ports.sst}`,
      `--wsrep-provider-options=${provider.join(";")}`,
      "--binlog-format=ROW",
      "--innodb-autoinc-lock-mode=2",
      "--default-storage-engine=InnoDB",
      ...cluster.extraArgs,
    ];
  }

  /**
   * After a crash (kill -9) grastate.dat holds seqno -1 and the node would ask for a full SST. As
   * Debian's galera_recovery does, `mariadbd --wsrep-recover` reads the last committed position
   * from InnoDB (about 0.2 s); starting with it lets the node rejoin with IST.
   */
  private async recoveredPosition(): Promise<string | null> {
    const grastate = join(this.datadir, "grastate.dat");
    if (!existsSync(grastate) || !/seqno:\s+-1/.test(readFileSync(grastate, "utf8"))) return null;
    const log = join(this.cluster.dir, `${this.name}.recover.err`);
    rmSync(log, { force: true });
    try {
      await run("mariadbd", [...this.args(), "--wsrep-recover", `--log-error=${log}`]);
    } catch (error) {
      // The recovery run itself can crash on a datadir left by kill -9 (a SIGSEGV was seen once,
      // MariaDB 10.11). The node then starts without a position and asks for a full SST: slower
      // than IST, but the cluster it rejoins is what the tests measure, not how it rejoined.
      this.recoveryFailures.push(error instanceof Error ? error.message.split("\n")[0] : String(error));
      return null;
    }
    const found = /WSREP: Recovered position: (\S+:-?\d+)/.exec(existsSync(log) ? readFileSync(log, "utf8") : "");
    return found && !found[1].endsWith(":-1") ? found[1] : null;
  }

  /**
   * Starts the node (bootstrapping a new cluster when asked) and waits until it is Synced in a
   * cluster of `size` nodes. A node that was killed recovers its position first, so it rejoins
   * with IST when the others still hold its missing write sets.
   */
  async start({
    bootstrap = false,
    size,
    recover = true,
  }: { bootstrap?: boolean; size?: number; recover?: boolean } = {}) {
    if (this.server) throw new Error(`${this.name} is already running`);
    const started = Date.now();
    const position = recover && !bootstrap ? await this.recoveredPosition() : null;
    const logStart = existsSync(this.errorLog) ? readFileSync(this.errorLog).length : 0;
    this.server = spawnOwned(
      "mariadbd",
      [
        ...this.args(),
        `--log-error=${this.errorLog}`,
        ...(bootstrap ? ["--wsrep-new-cluster"] : []),
        ...(position ? [`--wsrep-start-position=${position}`] : []),
      ],
      { folder: this.cluster.dir },
    );
    try {
      await this.waitForSynced(size ?? (bootstrap ? 1 : undefined), 60_000);
    } catch (error) {
      await this.kill();
      throw error;
    }
    this.lastStartMs = Date.now() - started;
    const log = readFileSync(this.errorLog, "utf8").slice(logStart);
    // The rsync script reports "rsync SST completed" for a full copy and "rsync IST completed" when
    // it only hands over to an incremental transfer (both are followed by "SST received").
    this.lastTransfer = bootstrap
      ? "bootstrap"
      : /rsync SST completed on joiner/.test(log)
        ? "SST"
        : /IST received/.test(log)
          ? "IST"
          : "none";
  }

  async state(timeoutMs = 2000): Promise<NodeState> {
    const rows = await this.query<RowDataPacket[]>(
      "SHOW GLOBAL STATUS WHERE Variable_name IN" +
        " ('wsrep_local_state', 'wsrep_local_state_comment', 'wsrep_cluster_size', 'wsrep_cluster_status', 'wsrep_ready')",
      [],
      timeoutMs,
    );
    const value = Object.fromEntries(rows.map((row) => [String(row.Variable_name), String(row.Value)]));
    return {
      localState: Number(value.wsrep_local_state),
      localStateComment: value.wsrep_local_state_comment,
      clusterSize: Number(value.wsrep_cluster_size),
      clusterStatus: value.wsrep_cluster_status,
      ready: value.wsrep_ready === "ON",
    };
  }

  /** Waits until this node is Synced (wsrep_local_state = 4), Primary, and — when given — in a cluster of `size`. */
  async waitForSynced(size?: number, timeoutMs = 30_000): Promise<NodeState> {
    const server = this.server;
    let exited = false;
    void server?.exited.then(() => (exited = true));
    return waitUntil(
      `${this.name} to be Synced${size ? ` in a cluster of ${size}` : ""}`,
      async () => {
        if (!server || exited) throw new Error(`${this.name} is not running:\n${logTail(this.errorLog)}`);
        const state = await this.state();
        const ok =
          state.localState === WSREP_STATE.synced &&
          state.clusterStatus === "Primary" &&
          (size === undefined || state.clusterSize === size);
        if (!ok) throw new Error(JSON.stringify(state));
        return state;
      },
      { timeoutMs, intervalMs: 100 },
    );
  }

  /** SIGSTOP: the node holds its sockets and answers nothing; the others evict it after about 2.5 s. */
  freeze(): void {
    this.server?.signal("SIGSTOP");
  }

  /** SIGCONT: a frozen node that was evicted rejoins by itself (IST); see waitForSynced. */
  thaw(): void {
    this.server?.signal("SIGCONT");
  }

  /** kill -9 of the node and its state-transfer helpers; start() brings it back on the same folder. */
  async kill(): Promise<void> {
    const server = this.server;
    this.server = null;
    await server?.kill();
  }

  /** A clean shutdown (SIGTERM, about 1.5 s): it leaves the cluster at once and restarts with IST. */
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
}

export class GaleraCluster {
  readonly nodes: GaleraNode[] = [];

  private constructor(
    readonly dir: string,
    readonly providerOptions: string,
    readonly extraArgs: string[],
  ) {}

  /**
   * Bootstraps node 1 (mariadb-install-db, --wsrep-new-cluster), then joins the others one at a
   * time, each with an empty folder filled by an rsync SST (joining them at once makes them wait
   * for the donor and churn the membership: slower here, not faster). Resolves when every node
   * is Synced in a cluster of `size`. About 10 s for three nodes.
   */
  static async start(options: GaleraOptions = {}): Promise<GaleraCluster> {
    const size = options.size ?? 3;
    const cluster = new GaleraCluster(
      serverFolder("galera"),
      options.providerOptions ?? TEST_TIMEOUTS,
      options.args ?? [],
    );
    try {
      const ports = await freePorts(4 * size);
      for (let i = 0; i < size; i++) {
        const [sql, gmcast, ist, sst] = ports.slice(4 * i, 4 * i + 4);
        cluster.nodes.push(new GaleraNode(cluster, i + 1, { sql, gmcast, ist, sst }));
      }
      for (const node of cluster.nodes) serverOwnedFolder(join(cluster.dir, `${node.name}.tmp`));
      await installDatadir(cluster.nodes[0].datadir, join(cluster.dir, "node1.tmp"));
      // The joiners start empty: their state transfer fills the folder.
      for (const node of cluster.nodes.slice(1)) serverOwnedFolder(node.datadir);
      await cluster.nodes[0].start({ bootstrap: true });
      // The account deploy/haproxy/galera-check.sh connects as (no privileges: SHOW STATUS needs none).
      await cluster.nodes[0].query("CREATE USER IF NOT EXISTS 'haproxy_check'@'%'");
      for (const node of cluster.nodes.slice(1)) await node.start({ size: node.index });
      return cluster;
    } catch (error) {
      await cluster.remove();
      throw error;
    }
  }

  /** Node `n`, counted from 1 as in the logs and names. */
  node(n: number): GaleraNode {
    const node = this.nodes[n - 1];
    if (!node) throw new Error(`no node ${n} in a cluster of ${this.nodes.length}`);
    return node;
  }

  /** Waits until each of `nodes` (default: every running node) is Synced in a cluster of `size`. */
  async waitForSize(size: number, nodes = this.nodes.filter((node) => node.running), timeoutMs = 30_000) {
    await Promise.all(nodes.map((node) => node.waitForSynced(size, timeoutMs)));
  }

  /** Kills every node (thawing none: SIGKILL ends frozen processes too). */
  async stopAll(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.kill()));
  }

  /** Kills every node and removes the cluster's folder. */
  async remove(): Promise<void> {
    await this.stopAll();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
