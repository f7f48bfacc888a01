import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, spawnOwned, waitUntil, type OwnedProcess } from "./processes";

// HAProxy (Debian's haproxy 2.6) started by a test: `haproxy -f <file> -db` on a free loopback
// port, stopped by its pid. The configurations are the committed ones in deploy/haproxy/, with
// the server lines replaced by the test's servers and the settings they read from the environment
// set to the test's ports and faster checks.

const DEPLOY = join(__dirname, "../../deploy/haproxy");

/** A server for a backend: its name in HAProxy and `host:port`. */
export interface HaproxyServer {
  name: string;
  address: string;
}

/** How often servers are checked: a dead server leaves after about inter × fall, returns after inter × rise. */
export interface CheckTimings {
  inter?: string;
  fall?: number;
  rise?: number;
}

/** Test timings: a server leaves the rotation within about 1–1.5 s and comes back within about 1 s. */
export const TEST_CHECKS: Required<CheckTimings> = { inter: "500ms", fall: 2, rise: 2 };

/**
 * Replaces the `server` lines of each named `listen`/`backend` section with one line per given
 * server, each keeping the options of the section's first server line (e.g. `check backup`).
 */
export function renderHaproxyConfig(template: string, servers: Record<string, HaproxyServer[]>): string {
  const out: string[] = [];
  const rendered = new Set<string>();
  let section = "";
  for (const line of template.split("\n")) {
    const header = /^(listen|backend|frontend|defaults|global|peers|resolvers|userlist)\b\s*(\S*)/.exec(line);
    if (header) section = header[1] === "listen" || header[1] === "backend" ? header[2] : "";
    const server = /^(\s+)server\s+\S+\s+\S+(.*)$/.exec(line);
    if (!server || !(section in servers)) {
      out.push(line);
      continue;
    }
    if (rendered.has(section)) continue;
    rendered.add(section);
    const [, indent, options] = server;
    for (const { name, address } of servers[section]) out.push(`${indent}server ${name} ${address}${options}`);
  }
  const missing = Object.keys(servers).filter((name) => !rendered.has(name));
  if (missing.length > 0) throw new Error(`no server lines in section(s) ${missing.join(", ")} of the template`);
  return out.join("\n");
}

/** One row of `show stat`, by column name (pxname, svname, status, scur, stot, chkfail, …). */
export type StatRow = Record<string, string>;

export class Haproxy {
  private constructor(
    private readonly process: OwnedProcess,
    readonly dir: string,
    /** The port clients connect to. */
    readonly port: number,
    readonly statsSocket: string,
  ) {}

  get pid(): number {
    return this.process.pid;
  }

  /**
   * Starts `haproxy -f <config> -db` with `env` (the configuration reads its listen address and
   * stats socket from HAPROXY_STATS_SOCKET and the variable named by `listenVariable`), and waits
   * until the stats socket answers. About 0.1 s.
   */
  static async start(config: string, listenVariable: string, env: Record<string, string> = {}): Promise<Haproxy> {
    const dir = mkdtempSync(join(tmpdir(), "regapi-haproxy-"));
    const port = await freePort();
    const statsSocket = join(dir, "stats.sock");
    const file = join(dir, "haproxy.cfg");
    writeFileSync(file, config);
    const log = openSync(join(dir, "haproxy.log"), "a");
    const process_ = spawnOwned("haproxy", ["-f", file, "-db"], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/bin",
        HAPROXY_STATS_SOCKET: statsSocket,
        [listenVariable]: `127.0.0.1:${port}`,
        ...env,
      },
      stdio: ["ignore", log, log],
      folder: dir,
    });
    closeSync(log);
    const haproxy = new Haproxy(process_, dir, port, statsSocket);
    let exited = false;
    void process_.exited.then(() => (exited = true));
    try {
      await waitUntil("haproxy's stats socket", async () => {
        if (exited) throw new Error(`haproxy exited:\n${haproxy.log()}`);
        return (await haproxy.command("show info")).includes("Pid:");
      });
    } catch (error) {
      await haproxy.stop();
      throw error;
    }
    return haproxy;
  }

  /**
   * deploy/haproxy/galera.cfg in front of database nodes: TCP, `balance first` (all connections to
   * the first Synced node), deploy/haproxy/galera-check.sh as the health check.
   */
  static galera(nodes: { name: string; port: number }[], checks: CheckTimings = {}): Promise<Haproxy> {
    const timings = { ...TEST_CHECKS, ...checks };
    const config = renderHaproxyConfig(readFileSync(join(DEPLOY, "galera.cfg"), "utf8"), {
      galera: nodes.map((node) => ({ name: node.name, address: `127.0.0.1:${node.port}` })),
    });
    return Haproxy.start(config, "GALERA_LISTEN", {
      GALERA_CHECK_COMMAND: join(DEPLOY, "galera-check.sh"),
      GALERA_CHECK_INTER: timings.inter,
      GALERA_CHECK_FALL: String(timings.fall),
      GALERA_CHECK_RISE: String(timings.rise),
    });
  }

  /** deploy/haproxy/instances.cfg in front of service instances: HTTP, round robin, GET /readyz as the check. */
  static instances(instances: { name: string; port: number }[], checks: CheckTimings = {}): Promise<Haproxy> {
    const timings = { ...TEST_CHECKS, ...checks };
    const config = renderHaproxyConfig(readFileSync(join(DEPLOY, "instances.cfg"), "utf8"), {
      regapi_instances: instances.map((instance) => ({ name: instance.name, address: `127.0.0.1:${instance.port}` })),
    });
    return Haproxy.start(config, "REGAPI_LISTEN", {
      REGAPI_CHECK_INTER: timings.inter,
      REGAPI_CHECK_FALL: String(timings.fall),
      REGAPI_CHECK_RISE: String(timings.rise),
    });
  }

  /** What haproxy wrote to stdout/stderr (alerts, warnings). */
  log(): string {
    try {
      return readFileSync(join(this.dir, "haproxy.log"), "utf8");
    } catch {
      return "";
    }
  }

  /** Sends one command to the stats socket (e.g. "show stat", "disable server galera/db1") and returns the answer. */
  command(text: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(this.statsSocket);
      let answer = "";
      socket.setTimeout(5000, () => socket.destroy(new Error(`no answer to "${text}" on the stats socket`)));
      socket.on("connect", () => socket.end(`${text}\n`));
      socket.on("data", (chunk: Buffer) => (answer += chunk.toString("utf8")));
      socket.on("end", () => resolve(answer));
      socket.on("error", reject);
    });
  }

  /** `show stat` as rows keyed by column name. */
  async stat(): Promise<StatRow[]> {
    const [header, ...lines] = (await this.command("show stat")).trim().split("\n");
    const columns = header.replace(/^# /, "").split(",");
    return lines.map((line) => Object.fromEntries(line.split(",").map((value, i) => [columns[i], value])));
  }

  /**
   * The state of each server of `proxy` (a listen or backend name): "UP", "DOWN", "MAINT", or a
   * transition such as "UP 1/2" (failed one check of two) or "DOWN 1/2".
   */
  async serverStates(proxy: string): Promise<Record<string, string>> {
    const rows = (await this.stat()).filter(
      (row) => row.pxname === proxy && row.svname !== "FRONTEND" && row.svname !== "BACKEND",
    );
    return Object.fromEntries(rows.map((row) => [row.svname, row.status]));
  }

  /** Waits until `server` of `proxy` is exactly `status` (e.g. "UP", "DOWN"). */
  async waitForServer(proxy: string, server: string, status: string, timeoutMs = 15_000): Promise<void> {
    await waitUntil(
      `${proxy}/${server} to be ${status}`,
      async () => {
        const states = await this.serverStates(proxy);
        if (!(server in states)) throw new Error(`no server ${server} in ${proxy}: ${JSON.stringify(states)}`);
        if (states[server] !== status) throw new Error(JSON.stringify(states));
        return true;
      },
      { timeoutMs, intervalMs: 100 },
    );
  }

  /** SIGTERM (HAProxy stops at once), waited for, then its folder is removed. */
  async stop(): Promise<void> {
    this.process.signal("SIGTERM");
    const timer = setTimeout(() => void this.process.kill(), 5000);
    await this.process.exited;
    clearTimeout(timer);
    await this.process.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
