import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { machineTmp } from "./run-folder";

// Servers a test starts (private mariadbd, Galera nodes, haproxy, service instances) are recorded
// here by pid, so a test that fails half-way, a worker that is force-exited or a run interrupted
// with Ctrl-C leaves nothing running for long: the worker kills its own on exit, the jest global
// teardown kills everything of its run, and the next run's global setup kills what a dead run
// left behind. A record holds the pid's start time, so a recycled pid is never killed.

/** Where the records live: one file per process, named `<run>-<pid>`. */
const registry = () => join(machineTmp(), "regapi-test-processes");
/** The jest run a record belongs to (set by test/support/global-setup.ts; the worker's own pid otherwise). */
const RUN = () => process.env.REGAPI_TEST_RUN ?? String(process.pid);

interface ProcessRecord {
  pid: number;
  startTime: string;
  /** Kill the whole process group (a server started in a group of its own, with helpers like SST scripts). */
  group: boolean;
  run: string;
  owner: number;
  command: string;
  /** A temporary folder of the server's, removed once it is killed. */
  folder?: string;
}

/** The kernel's start time of a pid (field 22 of /proc/<pid>/stat), or null when it is gone. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

const owned = new Map<number, ProcessRecord>();

function killRecord(record: ProcessRecord): void {
  if (startTimeOf(record.pid) !== record.startTime) return;
  for (const target of record.group ? [-record.pid, record.pid] : [record.pid]) {
    try {
      process.kill(target, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

let exitHookInstalled = false;

/** Records a started process; `forget` it once it has exited. */
export function recordProcess(
  child: ChildProcess,
  options: { group: boolean; command: string; folder?: string },
): void {
  const pid = child.pid;
  if (pid === undefined) return;
  const record: ProcessRecord = {
    pid,
    startTime: startTimeOf(pid) ?? "",
    group: options.group,
    run: RUN(),
    owner: process.pid,
    command: options.command,
    folder: options.folder,
  };
  owned.set(pid, record);
  const file = join(registry(), `${record.run}-${pid}`);
  // The folder is removed when a run ends with it empty (removeEmptyRegistry), maybe just now.
  for (let attempt = 0; ; attempt++) {
    try {
      mkdirSync(registry(), { recursive: true });
      writeFileSync(file, JSON.stringify(record));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || attempt > 3) throw error;
    }
  }
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // process.kill is synchronous, so this works in an exit handler.
    process.on("exit", () => {
      for (const leftover of owned.values()) killRecord(leftover);
    });
  }
  child.once("exit", () => forgetProcess(pid));
}

export function forgetProcess(pid: number): void {
  const record = owned.get(pid);
  owned.delete(pid);
  if (record) rmSync(join(registry(), `${record.run}-${pid}`), { force: true });
}

function records(): ProcessRecord[] {
  let names: string[];
  try {
    names = readdirSync(registry());
  } catch {
    return [];
  }
  const found: ProcessRecord[] = [];
  for (const name of names) {
    try {
      found.push(JSON.parse(readFileSync(join(registry(), name), "utf8")) as ProcessRecord);
    } catch {
      rmSync(join(registry(), name), { force: true });
    }
  }
  return found;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Kills recorded processes: those of `run`, and those of runs whose jest process is gone (an
 * interrupted run). Returns what was still running. Used by the jest global setup and teardown.
 */
export function killRecordedProcesses(run: string): string[] {
  const killed: string[] = [];
  const ended = records().filter(
    (record) => record.run === run || (!isAlive(Number(record.run)) && !isAlive(record.owner)),
  );
  for (const record of ended) {
    if (startTimeOf(record.pid) === record.startTime) {
      killed.push(`${record.pid} ${record.command}`);
      killRecord(record);
    }
    rmSync(join(registry(), `${record.run}-${record.pid}`), { force: true });
  }
  // Folders only once every process that may write to them is gone (a cluster's nodes share one).
  for (const record of ended) if (record.folder) rmSync(record.folder, { recursive: true, force: true });
  return killed;
}

/** Removes the registry's folder once no run has a record in it (at the end of a run). */
export function removeEmptyRegistry(): void {
  try {
    rmdirSync(registry());
  } catch {
    // Records of another run, or already gone.
  }
}

export interface OwnedProcess {
  child: ChildProcess;
  pid: number;
  /** Resolves when the process has exited (with its code or signal). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends a signal to the process itself (not its group). */
  signal(signal: NodeJS.Signals): void;
  /** SIGKILL to the process and (when started in its own group) every helper it started; waits for the exit. */
  kill(): Promise<void>;
}

/**
 * Spawns a server in a process group of its own (so `kill()` also ends the helpers it starts, such
 * as Galera's SST scripts and their rsync daemon) and records it for the safety net, which also
 * removes `folder` (the server's temporary folder) when it has to kill the server.
 */
export function spawnOwned(
  command: string,
  args: string[],
  options: SpawnOptions & { folder?: string } = {},
): OwnedProcess {
  const { folder, ...spawnOptions } = options;
  const child = spawn(command, args, { stdio: "ignore", ...spawnOptions, detached: true });
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  const pid = child.pid;
  recordProcess(child, { group: true, command: `${command} ${args.join(" ")}`.slice(0, 300), folder });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  let done = false;
  void exited.then(() => (done = true));
  return {
    child,
    pid,
    exited,
    signal(signal) {
      if (!done) process.kill(pid, signal);
    },
    async kill() {
      // The group too, also once the leader has exited: helpers it started (an SST script and its
      // rsync daemon, a running health check) may outlive it.
      for (const target of done ? [-pid] : [-pid, pid]) {
        try {
          process.kill(target, "SIGKILL");
        } catch {
          // Gone already.
        }
      }
      await exited;
      forgetProcess(pid);
    },
  };
}

/**
 * Ports for servers are taken below Linux's ephemeral range (32768–60999), where the kernel picks
 * the local ports of outgoing connections: a port chosen there can be taken by any client
 * connection (of this or another test run) before the server binds it.
 */
const SERVER_PORTS = { from: 20_000, to: 32_767 };

/** A free TCP port on 127.0.0.1 for a server (checked by binding it, then released). */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0];
}

/** `count` distinct free ports on 127.0.0.1: all held open until every one is chosen, then released. */
export async function freePorts(count: number): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    for (let tries = 0; servers.length < count; tries++) {
      if (tries > 50 * count)
        throw new Error(`no ${count} free ports between ${SERVER_PORTS.from} and ${SERVER_PORTS.to}`);
      const port = SERVER_PORTS.from + Math.floor(Math.random() * (SERVER_PORTS.to - SERVER_PORTS.from + 1));
      const server = net.createServer();
      const bound = await new Promise<boolean>((resolve) => {
        server.once("error", () => resolve(false));
        server.listen({ port, host: "127.0.0.1", exclusive: true }, () => resolve(true));
      });
      if (bound) servers.push(server);
    }
    return servers.map((server) => (server.address() as net.AddressInfo).port);
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls `probe` every `intervalMs` until it returns something other than undefined/false, and
 * returns that; throws naming `what` (and the last error or value seen) after `timeoutMs`.
 */
export async function waitUntil<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 30_000, intervalMs = 100 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      const seen = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last seen: ${seen})`);
    }
    await sleep(intervalMs);
  }
}
