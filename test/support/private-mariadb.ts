import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { createConnection } from "mysql2/promise";

/** A free TCP port on 127.0.0.1 (asked of the kernel, then released). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A MariaDB server of the test's own (mariadb-install-db into a temporary folder, on a free
 * port), so it can be killed and frozen without touching the shared one. Started and stopped by
 * its pid only.
 */
export class PrivateMariadb {
  private child: ChildProcess | null = null;
  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  static async create(): Promise<PrivateMariadb> {
    const dir = mkdtempSync(join(tmpdir(), "regapi-private-mariadb-"));
    const install = spawnSync(
      "mariadb-install-db",
      ["--no-defaults", `--datadir=${join(dir, "data")}`, "--auth-root-authentication-method=normal", "--skip-test-db"],
      { encoding: "utf8" },
    );
    if (install.status !== 0) throw new Error(`mariadb-install-db failed: ${install.stderr}`);
    const server = new PrivateMariadb(dir, await freePort());
    await server.start();
    return server;
  }

  get pid(): number {
    if (!this.child?.pid) throw new Error("not running");
    return this.child.pid;
  }

  url(database: string): string {
    return `mariadb://root@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    this.child = spawn(
      "mariadbd",
      [
        "--no-defaults",
        `--user=${userInfo().username}`,
        `--datadir=${join(this.dir, "data")}`,
        `--port=${this.port}`,
        "--bind-address=127.0.0.1",
        `--socket=${join(this.dir, "mariadb.sock")}`,
        `--pid-file=${join(this.dir, "mariadb.pid")}`,
        "--innodb-buffer-pool-size=32M",
        "--skip-log-bin",
        "--max-connections=200",
      ],
      { stdio: "ignore" },
    );
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        const probe = await createConnection({
          host: "127.0.0.1",
          port: this.port,
          user: "root",
          connectTimeout: 1000,
        });
        await probe.end();
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  async query(sql: string): Promise<void> {
    const admin = await createConnection({ host: "127.0.0.1", port: this.port, user: "root" });
    await admin.query(sql);
    await admin.end();
  }

  freeze(): void {
    process.kill(this.pid, "SIGSTOP");
  }

  thaw(): void {
    process.kill(this.pid, "SIGCONT");
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = once(child, "exit");
    process.kill(this.pid, "SIGCONT");
    process.kill(this.pid, "SIGKILL");
    await exited;
    this.child = null;
  }

  async remove(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
