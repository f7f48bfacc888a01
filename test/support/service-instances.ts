import { startService, type ServiceProcess } from "../foundation/support/service-process";
import { freePorts } from "./processes";

// Several instances of the real service process (`node dist/src/main.js`, the run's build from
// builtService()) against one database, each on a free loopback port of its own that
// it keeps across restarts (so a load balancer's server list stays valid). Started and stopped by
// pid; the jest safety net kills any a test leaves running.

export interface InstancesOptions {
  /** Environment of every instance: DATABASE_URL, REDIS_URL, … (PORT and HOST are set per instance). */
  env: Record<string, string>;
  /** More environment for instance `index` (counted from 1). */
  envOf?: (index: number) => Record<string, string>;
}

export type ExitStatus = { code: number | null; signal: NodeJS.Signals | null };

export class ServiceInstance {
  /** The running process (null while stopped). Its `lines` are the JSON log lines written so far. */
  process: (ServiceProcess & { port: number }) | null = null;

  constructor(
    private readonly mainJs: string,
    readonly index: number,
    readonly port: number,
    private readonly env: Record<string, string>,
  ) {}

  /** app1, app2, …: the names the HAProxy server lines get. */
  get name(): string {
    return `app${this.index}`;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number {
    const pid = this.process?.child.pid;
    if (pid === undefined) throw new Error(`${this.name} is not running`);
    return pid;
  }

  get running(): boolean {
    return this.process !== null && this.process.child.exitCode === null && this.process.child.signalCode === null;
  }

  /** Starts the instance on its port and waits for its "listening" log line (about 1–2 s). */
  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.name} is already running`);
    this.process = await startService(this.mainJs, { ...this.env, PORT: String(this.port), HOST: "127.0.0.1" });
  }

  /** SIGTERM (the service drains and exits) and waits for the exit; returns how it exited. */
  async terminate(): Promise<ExitStatus> {
    const service = this.process;
    if (!service) throw new Error(`${this.name} is not running`);
    service.child.kill("SIGTERM");
    const exit = await service.exited;
    this.process = null;
    return exit;
  }

  /** SIGTERM, wait for the exit, start again on the same port. */
  async restart(): Promise<ExitStatus> {
    const exit = await this.terminate();
    await this.start();
    return exit;
  }

  /** SIGKILL, waited for. */
  async kill(): Promise<void> {
    const service = this.process;
    this.process = null;
    if (!service || service.child.exitCode !== null || service.child.signalCode !== null) return;
    service.child.kill("SIGKILL");
    await service.exited;
  }
}

export class ServiceInstances {
  private constructor(readonly instances: ServiceInstance[]) {}

  /**
   * Starts `count` instances. The first starts alone (on MariaDB it applies any pending migration;
   * two processes migrating one database at once would collide), the others then start side by side.
   */
  static async start(mainJs: string, count: number, options: InstancesOptions): Promise<ServiceInstances> {
    const ports = await freePorts(count);
    const instances = ports.map(
      (port, i) => new ServiceInstance(mainJs, i + 1, port, { ...options.env, ...(options.envOf?.(i + 1) ?? {}) }),
    );
    const group = new ServiceInstances(instances);
    try {
      await instances[0].start();
      await Promise.all(instances.slice(1).map((instance) => instance.start()));
    } catch (error) {
      await group.stopAll();
      throw error;
    }
    return group;
  }

  /** Instance `n`, counted from 1. */
  instance(n: number): ServiceInstance {
    const instance = this.instances[n - 1];
    if (!instance) throw new Error(`no instance ${n} of ${this.instances.length}`);
    return instance;
  }

  /** The servers for Haproxy.instances(). */
  servers(): { name: string; port: number }[] {
    return this.instances.map((instance) => ({ name: instance.name, port: instance.port }));
  }

  /** SIGTERM to every running instance, SIGKILL to any still running after `graceMs`; waits for all. */
  async stopAll(graceMs = 10_000): Promise<void> {
    await Promise.all(
      this.instances.map(async (instance) => {
        if (!instance.running) return;
        const timer = setTimeout(() => void instance.kill(), graceMs);
        await instance.terminate().catch(() => undefined);
        clearTimeout(timer);
      }),
    );
  }
}
