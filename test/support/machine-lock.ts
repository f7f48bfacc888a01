import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sleep } from "./processes";
import { machineTmp } from "./run-folder";

/**
 * A lock for the whole machine, held by one test file at a time: the scale tests (a Galera
 * cluster, a replicated pair, several service instances) each load both cores, and two of them at
 * once (two jest workers, or two runs side by side) would starve each other into false node
 * evictions and timeouts. A lock whose holder process is gone is taken over.
 */
export async function acquireMachineLock(
  name: string,
  timeoutMs = 240_000,
): Promise<{ release(): void; waitedMs: number }> {
  const dir = join(machineTmp(), `regapi-${name}.lock`);
  const started = Date.now();
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, "owner"), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    let owner = 0;
    try {
      owner = Number(readFileSync(join(dir, "owner"), "utf8"));
    } catch {
      // Being written or removed right now: look again.
    }
    if (owner > 0 && !isAlive(owner)) rmSync(dir, { recursive: true, force: true });
    else if (Date.now() - started > timeoutMs)
      throw new Error(`the ${name} lock (${dir}) is still held by process ${owner} after ${timeoutMs} ms`);
    else await sleep(250);
  }
  return {
    waitedMs: Date.now() - started,
    release: () => rmSync(dir, { recursive: true, force: true }),
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
