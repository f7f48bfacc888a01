import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { recordProcess } from "../../support/processes";

const ROOT = join(__dirname, "../../..");

export type LogLine = Record<string, unknown> & { msg?: string };

export interface ServiceProcess {
  child: ChildProcess;
  /** JSON log lines written to stdout so far. */
  lines: LogLine[];
  stderr(): string;
  /** Resolves with the first log line (already written or still to come) that matches. */
  waitForLine(match: (line: LogLine) => boolean): Promise<LogLine>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs `node main.js` with exactly the given environment (plus PATH), in `cwd` (default: the repository). */
export function spawnService(mainJs: string, env: Record<string, string>, cwd = ROOT): ServiceProcess {
  const child = spawn(process.execPath, [mainJs], {
    cwd,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Killed by the jest safety net if a test leaves it running (test/support/processes.ts).
  recordProcess(child, { group: false, command: `node ${mainJs}` });
  const lines: LogLine[] = [];
  const waiters: { match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  createInterface({ input: child.stdout! }).on("line", (text) => {
    let line: LogLine;
    try {
      line = JSON.parse(text) as LogLine;
    } catch {
      line = { msg: text, notJson: true };
    }
    lines.push(line);
    for (const waiter of [...waiters]) {
      if (waiter.match(line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    waitForLine(match) {
      const seen = lines.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.push({ match, resolve });
        void exited.then(({ code }) =>
          reject(new Error(`service exited (code ${code}) before the expected log line; stderr:\n${stderr}`)),
        );
      });
    },
  };
}

/** Starts the service and waits until it listens; returns it with the bound port. */
export async function startService(
  mainJs: string,
  env: Record<string, string>,
  cwd?: string,
): Promise<ServiceProcess & { port: number }> {
  const service = spawnService(mainJs, { PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", ...env }, cwd);
  const listening = await service.waitForLine((line) => line.msg === "listening");
  return { ...service, port: Number(listening.port) };
}

/** Sends SIGTERM and waits for the exit. */
export async function stopService(
  service: ServiceProcess,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  service.child.kill("SIGTERM");
  return service.exited;
}
